"""Adapters that plug graph_memory into agent runtimes: an MCP server (`mcp_server`) and a
LangGraph `BaseStore` (`langgraph`). Both talk to a running service over GraphQL with the
caller's key, so tenant and role rules are enforced in one place: the service."""
