#!/usr/bin/env bash
# One entry point for a fresh machine: virtualenv, dependencies, Neo4j (fetched from Maven
# Central, Java from PyPI), migrations, then either the service or the tests.
#   scripts/dev.sh serve   run the service on http://127.0.0.1:8000/graphql (local Neo4j)
#   scripts/dev.sh test    run the whole test suite against a real Neo4j, then stop it
# With NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD set, that server is used and nothing is started.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
VENV="${GRAPH_MEMORY_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating virtualenv $VENV"
    "$PY" -m venv "$VENV"
  fi
  echo "==> installing graph-memory and its dependencies"
  # Build-backend chatter goes to a log that is shown only if the install fails.
  local log="$VENV/install.log"
  if ! { "$VENV/bin/python" -m pip install --quiet --upgrade pip &&
         "$VENV/bin/python" -m pip install --quiet -e ".[dev]"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "install failed (log: $log)" >&2
    exit 1
  fi
  export PATH="$VENV/bin:$PATH"
  if [ -z "${NEO4J_URI:-}" ]; then
    echo "==> fetching (first time only) and starting the local Neo4j"
    graph-memory neo4j start
  else
    echo "==> using the Neo4j at $NEO4J_URI"
  fi
  echo "==> migrating"
  graph-memory migrate
}

stop_local() {
  if [ -z "${NEO4J_URI:-}" ]; then
    graph-memory neo4j stop || true
  fi
}

cmd="${1:-}"
shift || true
case "$cmd" in
  serve)
    setup
    key="$(graph-memory keys create --tenant "${GRAPH_MEMORY_DEMO_TENANT:-demo}" --role admin --name dev-serve --quiet)"
    echo "==> API key for tenant ${GRAPH_MEMORY_DEMO_TENANT:-demo} (admin): $key"
    echo "    GraphiQL: http://127.0.0.1:${PORT:-8000}/graphql  (header Authorization: Bearer $key)"
    echo "    Neo4j Browser: http://127.0.0.1:${GRAPH_MEMORY_NEO4J_HTTP_PORT:-7474}/browser/ (user neo4j, password in $("$VENV/bin/python" -c 'from graph_memory.settings import local_password_file as f; print(f())'))"
    exec graph-memory serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8000}" "$@"
    ;;
  test)
    setup
    trap stop_local EXIT
    set +e
    "$VENV/bin/python" -m pytest "$@"
    status=$?
    set -e
    # pytest exits 5 when it collected nothing: that is a failure of the suite, not a pass.
    exit "$status"
    ;;
  *)
    echo "usage: scripts/dev.sh serve|test [args]" >&2
    exit 2
    ;;
esac
