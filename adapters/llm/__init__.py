"""The LLM writer's model client: the official ``openai`` SDK against any OpenAI-compatible server."""
