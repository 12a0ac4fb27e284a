"""The engine: paths, bytes, reading and listing. Never imports the protocol layer."""
