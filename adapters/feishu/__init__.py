"""Feishu edge: card JSON 2.0 (``cards``), inbound text (``inbound``), the HTTP app (``app``), the Open API client (``openapi``), delivery and the long connection."""
