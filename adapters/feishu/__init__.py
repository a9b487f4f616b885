"""Feishu edge: card JSON 2.0 rendering (``cards``) and inbound text (``inbound``); the lark-oapi app and delivery come later."""
