#!/usr/bin/env bash
# The strict client with the interface of the shared harness's run.sh, of which it keeps only `strict`:
#   run.sh strict [strict_client.mjs options] -- <server command…>
# Its node_modules come from `make strict-client` (npm ci of package-lock.json).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="${1:-}"
shift || true
if [[ "$cmd" != strict ]]; then
  sed -n '2,4p' "$0" >&2
  exit 2
fi
if ! command -v node >/dev/null; then
  echo "run.sh: node is not on PATH; the strict client needs Node.js 20 or newer (Debian: apt-get install nodejs npm)" >&2
  exit 2
fi
if [[ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]]; then
  echo "run.sh: $here/node_modules is missing; run 'make strict-client' (npm ci in tests/strict_client)" >&2
  exit 2
fi
exec node "$here/strict_client.mjs" "$@"
