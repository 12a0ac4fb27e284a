"""``fsguard dashboard``: a web UI for the person behind the agents: what they did (Activity, Statistics), and
Undo / Restore / trash recovery through the same engine as the ``backup`` tool (Files, Trash).

Reads the state directory and audit log the servers write, so it runs beside them; see :mod:`.app`.
"""
