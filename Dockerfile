# The graph_memory service image. Neo4j runs in its own container (docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY graph_memory ./graph_memory
COPY cypher ./cypher
RUN pip install --no-cache-dir ".[server,mcp]" && useradd --create-home gm
USER gm
ENV GRAPH_MEMORY_HOME=/home/gm/.cache/graph-memory
EXPOSE 8000
CMD ["graph-memory", "serve", "--host", "0.0.0.0", "--port", "8000"]
