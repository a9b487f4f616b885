"""The LLM writer's cache in the store (:class:`chatbot.ports.SummaryCache`)."""

from __future__ import annotations

from sqlalchemy import select

from adapters.storage.engine import StorePort
from adapters.storage.schema import SUMMARIES


class SqlSummaryCache(StorePort):
    """The ``summaries`` table: model payloads by (subject, content SHA-256, model), first put kept."""

    def get_summary(self, subject: str, content_hash: str, model: str) -> dict[str, object] | None:
        """The cached model payload for (subject, content SHA-256, model), or None.

        Raises:
            StoreError: a database error.
        """
        t = SUMMARIES
        with self._errors("reading a cached summary"), self._engine.connect() as conn:
            row = conn.execute(select(t.c.payload).where(
                t.c.subject == subject, t.c.content_sha256 == content_hash, t.c.model == model)).first()
        return dict(row[0]) if row is not None else None

    def put_summary(self, subject: str, content_hash: str, model: str, payload: dict[str, object],
                    prompt_tokens: int, completion_tokens: int) -> None:
        """Store a model payload (a second put of the same key keeps the first: same facts, same model).

        Raises:
            StoreError: a database error.
        """
        t = SUMMARIES
        with self._errors("storing a summary", writing=True), self._engine.begin() as conn:
            conn.execute(self._insert(conn)(t).values(
                subject=subject, content_sha256=content_hash, model=model, payload=payload,
                prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                created_at=self._clock.now(),
            ).on_conflict_do_nothing(index_elements=[t.c.subject, t.c.content_sha256, t.c.model]))
