"""The optional approval of the weekly post (``approval: true`` per repository): preview, decide, post once.

Flow, per (repository, week)::

    weekly job      no record: the record is made ``pending`` (with its deadline) and the digest goes
                    to every admin as a preview: part 1 with Approve / Skip. Nothing is posted.
                    ``pending`` again (a catch-up run, a restart): the previews are not sent twice
                    (the delivery log, kind ``preview``); ``approved``: the post goes out;
                    ``skipped``: nothing.
    Approve         an admin's press: ``pending`` -> ``approved``, then the job posts (exactly once:
                    the store changes the record only while it is pending, and every part is in the
                    delivery log). A second press, or one on another replica, is told it was decided.
    Skip            ``pending`` -> ``skipped``; nothing is posted and every admin is told.
    deadline        :meth:`Approvals.run_due` (every minute in ``prhub serve``): a pending record
                    whose deadline passed becomes ``approved`` by ``deadline`` and is posted.

The deadline (``approval_deadline``) is minutes after the scheduled run (``180``) or the first
``"Mon 12:00"`` after it in the schedule's zone; without one the post waits for an admin.
Approve / Skip are :class:`chatbot.cards.Action`\\ s whose value names the repository and week
(:class:`chatbot.actions.ActionValue`); the value is untrusted and checked here (a configured
repository with approval, a week with a pending record, an admin pressing).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta, timezone

from chatbot.actions import ActionValue, button, decode, problem_card, with_buttons
from chatbot.admins import admin_user
from chatbot.approvals import APPROVED, PENDING, SKIPPED, ApprovalBook, ApprovalRecord, State
from chatbot.cards import Action, Card, Section, Text, message_card
from chatbot.errors import PrhubError
from chatbot.i18n import lang_or, tr
from chatbot.ports import Clock, Destination
from chatbot.subscriptions import Requester
from chatbot.weeks import IsoWeek, load_zone
from scheduler.config import DAY_NAMES, _WEEKLY_RE, BotConfig, RepositoryConfig
from scheduler.delivery import Deliverer, JobReport

log = logging.getLogger(__name__)

PREVIEW = "preview"
"""The delivery-log kind of the admins' previews."""

AWAITING = "awaiting_approval"
SKIPPED_STATUS = "skipped"


def deadline_after(spec: str | int | None, fire_time: datetime, tz: str) -> datetime | None:
    """When a post held for approval goes out by itself (aware UTC), None without a deadline.

    Args:
        spec: minutes after ``fire_time`` (``180``), or ``"Mon 12:00"``: the first such wall-clock
            time in ``tz`` strictly after ``fire_time`` (a week later when it is exactly then).
        fire_time: the scheduled run (aware).
        tz: the schedule's IANA zone.
    """
    if spec is None:
        return None
    if isinstance(spec, int):
        return (fire_time + timedelta(minutes=spec)).astimezone(timezone.utc)
    m = _WEEKLY_RE.match(spec)
    if m is None:  # validated by the config; belt and braces
        return None
    zone = load_zone(tz)
    local = fire_time.astimezone(zone)
    day = (DAY_NAMES.index(m.group(1).lower()) - 1) % 7  # Monday = 0, like date.weekday()
    ahead = (day - local.weekday()) % 7
    at = datetime.combine(local.date() + timedelta(days=ahead), datetime.min.time(), tzinfo=zone).replace(
        hour=int(m.group(2)), minute=int(m.group(3)))
    if at <= local:
        at = datetime.combine(at.date() + timedelta(days=7), at.timetz())
    return at.astimezone(timezone.utc)


class Approvals:
    """Previews, decisions and deadlines of the weekly posts held for approval.

    Args:
        config: the bot's configuration (repositories with ``approval``, ``admins``).
        book: the approval records (the store).
        deliverer: sends the previews (exactly once per admin) and the admins' notices.
        clock: current time.
    """

    def __init__(self, config: BotConfig, book: ApprovalBook, deliverer: Deliverer, clock: Clock) -> None:
        self.config = config
        self.book = book
        self.deliverer = deliverer
        self.clock = clock
        self._run: Callable[[str, IsoWeek], JobReport] | None = None

    def attach(self, run: Callable[[str, IsoWeek], JobReport]) -> None:
        """How an approved week is posted (the :class:`scheduler.jobs.DigestJob` sets its own ``run``)."""
        self._run = run

    # -- the weekly job's gate ---------------------------------------------------------------------

    def admins(self) -> list[Destination]:
        """Every configured admin as a direct-message destination (platforms with a delivery only)."""
        out = []
        for platform, ids in sorted(self.config.admins.items()):
            if self.deliverer.delivery_for(platform) is None:
                continue
            for scoped in ids:
                workspace = scoped.rpartition(":")[0]
                out.append(Destination(platform=platform, target=admin_user(scoped), workspace=workspace))
        return out

    def hold(self, cfg: RepositoryConfig, week: IsoWeek, fire_time: datetime,
             previews: Callable[[str], list[Card]]) -> str | None:
        """Whether the job may post ``week`` now: None when it may (approved, or no approval
        configured), else the report status (``awaiting_approval`` after the previews went out,
        ``skipped``).

        Args:
            previews: the digest cards in a language (the preview's parts).

        Raises:
            chatbot.errors.PrhubError: the store cannot be read or written.
        """
        if not cfg.approval:
            return None
        rec = self.book.approval(cfg.repo, str(week))
        if rec is None:
            deadline = deadline_after(cfg.approval_deadline, fire_time, cfg.schedule.timezone)
            rec, _ = self.book.open_approval(cfg.repo, str(week), deadline, self.clock.now())
        if rec.state == APPROVED:
            return None
        if rec.state == SKIPPED:
            return SKIPPED_STATUS
        lang = cfg.destinations[0].lang
        cards = previews(lang)
        if cards:
            cards[0] = self.preview_card(cards[0], cfg, rec, lang)
        for admin in self.admins():
            self.deliverer.deliver(admin, cards, repo=cfg.repo, week=str(week), kind=PREVIEW)
        if not self.admins():
            log.warning("job %s %s: approval: true but no admin to ask (admins in the config)", cfg.repo, week)
        log.info("job %s %s: held for approval (deadline %s)", cfg.repo, week,
                 rec.deadline.isoformat() if rec.deadline else "none")
        return AWAITING

    def preview_card(self, card: Card, cfg: RepositoryConfig, rec: ApprovalRecord, lang: str) -> Card:
        """Part 1 of the preview: a notice first (destinations, deadline), Approve / Skip last."""
        dests = ", ".join(f"{d.platform}:{d.target}" for d in cfg.destinations)
        when = (tr(lang, "approval.deadline", time=f"{rec.deadline:%Y-%m-%d %H:%M} UTC") if rec.deadline
                else tr(lang, "approval.no_deadline"))
        notice = Section(role="notice", lines=((Text(text=tr(lang, "approval.preview", n=len(cfg.destinations))),),
                                               (Text(text=dests),), (Text(text=when),)))
        value = ActionValue(repo=cfg.repo, week=rec.week, lang=lang_or(lang))
        card = card.model_copy(update={"blocks": (notice, *card.blocks)})
        return with_buttons(card, [button(lang, "approval.approve", "approve", value),
                                   button(lang, "approval.skip", "skip", value)])

    # -- decisions ---------------------------------------------------------------------------------

    def handlers(self) -> Mapping[str, Callable[[Action, Requester, str], Card]]:
        """The chat handlers of the preview's buttons: ``approve`` and ``skip``."""
        return {"approve": self.on_approve, "skip": self.on_skip}

    def _pending(self, action: Action, who: Requester, lang: str) -> tuple[RepositoryConfig, ApprovalRecord, str] | Card:
        value = decode(action.value)
        if value is None or not value.repo or not value.week:
            return problem_card(lang, "unknown")
        lg = value.lang
        if not who.is_admin:
            return message_card(tr(lg, "approval.header"), [tr(lg, "approval.admins_only")], lang=lg, role="approval")
        try:
            cfg = self.config.repository(value.repo)
            IsoWeek.parse(value.week)
        except PrhubError:
            return problem_card(lg, "unknown")
        rec = self.book.approval(cfg.repo, value.week) if cfg.approval else None
        if rec is None:
            return message_card(tr(lg, "approval.header"), [tr(lg, "approval.none")], lang=lg, role="approval")
        return cfg, rec, lg

    def _decided(self, rec: ApprovalRecord, lang: str) -> Card:
        at = f"{rec.decided_at:%Y-%m-%d %H:%M} UTC" if rec.decided_at else "-"
        key = "approval.already_deadline" if rec.decided_by == "deadline" else f"approval.already_{rec.state}"
        return message_card(tr(lang, "approval.header"), [tr(lang, key, repo=rec.repo, week=rec.week, time=at)],
                            lang=lang, role="approval")

    def _decide(self, action: Action, who: Requester, lang: str, state: State) -> tuple[RepositoryConfig, str, str] | Card:
        """``(config, week, lang)`` when this press moved the pending record to ``state``, else the
        card to answer (a bad value, not an admin, nothing pending, already decided)."""
        got = self._pending(action, who, lang)
        if isinstance(got, Card):
            return got
        cfg, rec, lg = got
        if not self.book.decide_approval(cfg.repo, rec.week, state, f"{who.platform}:{who.workspace}:{who.user}",
                                         self.clock.now()):
            return self._decided(self.book.approval(cfg.repo, rec.week) or rec, lg)
        return cfg, rec.week, lg

    def on_approve(self, action: Action, who: Requester, lang: str) -> Card:
        """Approve: the pending post goes out now (once); a decided one says how it was decided."""
        got = self._decide(action, who, lang, APPROVED)
        if isinstance(got, Card):
            return got
        cfg, week, lg = got
        report = self._post(cfg.repo, week)
        lines = [tr(lg, "approval.approved", repo=cfg.repo, week=week, n=len(report.digests) if report else 0)]
        if report is not None and report.problems:
            lines.append(tr(lg, "approval.problems", n=len(report.problems)))
        return message_card(tr(lg, "approval.header"), lines, lang=lg, role="approval")

    def on_skip(self, action: Action, who: Requester, lang: str) -> Card:
        """Skip: nothing is posted for the week; every admin is told."""
        got = self._decide(action, who, lang, SKIPPED)
        if isinstance(got, Card):
            return got
        cfg, week, lg = got
        self._tell(cfg, week, lg)
        return message_card(tr(lg, "approval.header"), [tr(lg, "approval.skipped", repo=cfg.repo, week=week)],
                            lang=lg, role="approval")

    def _post(self, repo: str, week: str) -> JobReport | None:
        if self._run is None:
            log.error("approval of %s %s: no job attached", repo, week)
            return None
        return self._run(repo, IsoWeek.parse(week))

    def _tell(self, cfg: RepositoryConfig, week: str, lang: str) -> None:
        card = message_card(tr(lang, "approval.header"), [tr(lang, "approval.skipped_notice", repo=cfg.repo, week=week)],
                            lang=lang, role="approval")
        for admin in self.admins():
            self.deliverer.deliver(admin, [card], repo=cfg.repo, week=week, kind="skipped")

    # -- deadlines ---------------------------------------------------------------------------------

    def run_due(self) -> list[tuple[str, str]]:
        """Post every pending week whose deadline passed (each once: the decision is atomic); never raises.

        Returns:
            ``(repo, week)`` of the posts this call made.
        """
        done: list[tuple[str, str]] = []
        try:
            due: Sequence[ApprovalRecord] = self.book.due_approvals(self.clock.now())
        except PrhubError as exc:
            log.warning("approvals: cannot read the due ones: %s", exc.user_message)
            return done
        for rec in due:
            try:
                if rec.state == PENDING and self.book.decide_approval(rec.repo, rec.week, APPROVED, "deadline",
                                                                      self.clock.now()):
                    log.info("approval of %s %s: deadline passed: posting", rec.repo, rec.week)
                    self._post(rec.repo, rec.week)
                    done.append((rec.repo, rec.week))
            except Exception:  # noqa: BLE001 - one bad record must not stop the others
                log.exception("approval of %s %s: posting at the deadline failed", rec.repo, rec.week)
        return done
