"""One order from "this before that" constraints: the parse order of the chat intents
(:func:`chatbot.intent.parse_order`) and the order chat reads the risk tags' words in
(:attr:`chatbot.risks.RiskRegistry.tag_words`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def ordered(names: Sequence[str], before: Mapping[str, Sequence[str]], *, what: str) -> tuple[str, ...]:
    """``names`` sorted so that every name comes before the names its ``before`` lists (Kahn's
    algorithm); among names no constraint orders, the one earlier in ``names`` first.

    Args:
        names: the entries, in the order that breaks the remaining ties.
        before: name -> the names it must precede (a name without constraints may be absent).
        what: what an entry is (``intent``), for the error messages.

    Raises:
        ValueError: a name is given twice, a ``before`` lists a name not in ``names`` (or the name
            itself), or the constraints form a cycle (the message walks it: ``a before b before a``).
    """
    rank = {n: k for k, n in enumerate(names)}
    if len(rank) < len(names):
        twice = next(n for k, n in enumerate(names) if n in names[:k])
        raise ValueError(f"{what} {twice!r} registered twice")
    after: dict[str, set[str]] = {n: set() for n in names}
    waits: dict[str, int] = dict.fromkeys(names, 0)
    for name in names:
        for other in dict.fromkeys(before.get(name, ())):
            if other not in rank or other == name:
                raise ValueError(f"{what} {name!r}: before={other!r} names no other {what} of the registry")
            after[name].add(other)
            waits[other] += 1
    ready = [n for n in names if waits[n] == 0]
    order: list[str] = []
    while ready:
        name = ready.pop(0)
        order.append(name)
        for other in after[name]:
            waits[other] -= 1
            if waits[other] == 0:
                ready.append(other)
        ready.sort(key=rank.__getitem__)
    if len(order) < len(names):  # every name left waits for another left: walk back to a cycle
        left = [n for n in names if n not in order]
        path = [min(left)]
        while True:
            prev = min(n for n in left if path[-1] in after[n])
            if prev in path:
                cycle = [prev, *reversed(path[path.index(prev):])]
                raise ValueError(f"{what} precedence has a cycle: {' before '.join(cycle)} (their before= constraints)")
            path.append(prev)
    return tuple(order)
