#!/usr/bin/env bash
# One entry point for a fresh machine: virtualenv, dependencies, Neo4j (fetched from Maven
# Central, Java from PyPI), migrations, then either the service or the tests.
#   scripts/dev.sh serve   run the service on http://127.0.0.1:8000/graphql (local Neo4j)
#   scripts/dev.sh test    run the whole test suite against a Neo4j of its own, then stop it
#   scripts/dev.sh test-env  print the Neo4j home and ports `test` uses
# With NEO4J_URI/NEO4J_USER/NEO4J_PASSWORD set, that server is used and nothing is started.
#
# `test` never touches the Neo4j `serve` uses: unless GRAPH_MEMORY_HOME is set, it runs its
# own server in ~/.cache/graph-memory-test on ports 17687/17474 (GRAPH_MEMORY_NEO4J_*_PORT
# override them), sharing the downloaded jars of ~/.cache/graph-memory (nothing is fetched
# twice); it stops its server afterwards only if it started it.
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

test_env() {
  # A home the user chose keeps its own ports (7687/7474 unless set): the choice is theirs.
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}"
  if [ -z "${GRAPH_MEMORY_HOME:-}" ]; then
    export GRAPH_MEMORY_HOME="$cache/graph-memory-test"
    export GRAPH_MEMORY_JAR_CACHE="${GRAPH_MEMORY_JAR_CACHE:-$cache/graph-memory/jars}"
    export GRAPH_MEMORY_NEO4J_BOLT_PORT="${GRAPH_MEMORY_NEO4J_BOLT_PORT:-17687}"
    export GRAPH_MEMORY_NEO4J_HTTP_PORT="${GRAPH_MEMORY_NEO4J_HTTP_PORT:-17474}"
  else
    export GRAPH_MEMORY_NEO4J_BOLT_PORT="${GRAPH_MEMORY_NEO4J_BOLT_PORT:-7687}"
    export GRAPH_MEMORY_NEO4J_HTTP_PORT="${GRAPH_MEMORY_NEO4J_HTTP_PORT:-7474}"
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
  test-env)
    test_env
    echo "GRAPH_MEMORY_HOME=$GRAPH_MEMORY_HOME"
    echo "GRAPH_MEMORY_JAR_CACHE=${GRAPH_MEMORY_JAR_CACHE:-$GRAPH_MEMORY_HOME/jars}"
    echo "GRAPH_MEMORY_NEO4J_BOLT_PORT=$GRAPH_MEMORY_NEO4J_BOLT_PORT"
    echo "GRAPH_MEMORY_NEO4J_HTTP_PORT=$GRAPH_MEMORY_NEO4J_HTTP_PORT"
    ;;
  test)
    test_env
    echo "==> tests use Neo4j home $GRAPH_MEMORY_HOME, bolt $GRAPH_MEMORY_NEO4J_BOLT_PORT, http $GRAPH_MEMORY_NEO4J_HTTP_PORT"
    # A test server someone else left running (another test run) is theirs to stop.
    already=0
    if [ -z "${NEO4J_URI:-}" ] && [ -x "$VENV/bin/graph-memory" ] &&
       "$VENV/bin/graph-memory" neo4j status >/dev/null 2>&1; then
      already=1
    fi
    setup
    if [ "$already" = 0 ]; then trap stop_local EXIT; fi
    set +e
    "$VENV/bin/python" -m pytest "$@"
    status=$?
    set -e
    # pytest exits 5 when it collected nothing: that is a failure of the suite, not a pass.
    exit "$status"
    ;;
  *)
    echo "usage: scripts/dev.sh serve|test|test-env [args]" >&2
    exit 2
    ;;
esac
