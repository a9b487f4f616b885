"""Slack edge: Block Kit rendering (``blocks``); the bolt app and delivery come later."""
