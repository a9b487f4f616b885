"""The config file and the crontab -> CronTrigger mapping (BR-11), as pure functions on fixed dates."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import jsonschema
import pytest
import yaml

from chatbot.errors import InputError
from prhub.config import config_schema, load_config, parse_config
from scheduler.config import BotConfig, cron_trigger, crontab_weekdays, weekly_crontab
from scheduler.service import next_fire_time, planned_jobs, previous_fire_time
from tests.conftest import ROOT


def _next(crontab: str, tz: str, now: datetime) -> datetime:
    trig = cron_trigger(crontab, tz)
    nxt = next_fire_time(trig, now)
    assert nxt is not None
    return nxt


# -- BR-11 ---------------------------------------------------------------------------------------


def test_br11_a_monday_in_shanghai():
    now = datetime(2024, 6, 12, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday
    nxt = _next("0 9 * * 1", "Asia/Shanghai", now)
    assert nxt.isoformat() == "2024-06-17T09:00:00+08:00"
    assert nxt.weekday() == 0


def test_br11_b_zero_is_sunday():
    now = datetime(2024, 6, 12, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert _next("0 9 * * 0", "Asia/Shanghai", now).isoformat() == "2024-06-16T09:00:00+08:00"
    assert _next("0 9 * * 7", "Asia/Shanghai", now).isoformat() == "2024-06-16T09:00:00+08:00"


def test_br11_c_spring_forward_los_angeles():
    now = datetime(2022, 3, 11, 10, 0, tzinfo=ZoneInfo("America/Los_Angeles"))
    nxt = _next("0 9 * * 1", "America/Los_Angeles", now)
    assert nxt.isoformat() == "2022-03-14T09:00:00-07:00"
    assert nxt.astimezone(ZoneInfo("UTC")).hour == 16


def test_br11_d_fall_back_berlin():
    now = datetime(2024, 10, 25, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    nxt = _next("0 9 * * 1", "Europe/Berlin", now)
    assert nxt.isoformat() == "2024-10-28T09:00:00+01:00"
    assert nxt.astimezone(ZoneInfo("UTC")).hour == 8


def test_weekly_form_equals_crontab():
    now = datetime(2024, 6, 12, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert weekly_crontab("mon 09:00") == "0 9 * * mon"
    assert _next(weekly_crontab("Monday 09:00"), "Asia/Shanghai", now).isoformat() == "2024-06-17T09:00:00+08:00"


@pytest.mark.parametrize("field, names", [
    ("1", "mon"), ("0", "sun"), ("7", "sun"), ("1-5", "mon,tue,wed,thu,fri"), ("5-7", "fri,sat,sun"),
    ("0-6", "mon,tue,wed,thu,fri,sat,sun"), ("*/2", "tue,thu,sat,sun"), ("1,3", "mon,wed"), ("mon-wed", "mon,tue,wed"),
    ("*", "*"), ("sun,1", "mon,sun"),
])
def test_crontab_weekdays_are_mapped_to_names(field, names):
    assert crontab_weekdays(field) == names


@pytest.mark.parametrize("bad", ["8", "1-x", "", "3-1", "0 9 * *", "0 9 1 * 1", "61 9 * * 1"])
def test_bad_crontabs(bad):
    with pytest.raises(ValueError):
        cron_trigger(bad if " " in bad else f"0 9 * * {bad}", "UTC")


def test_previous_fire_time():
    trig = cron_trigger("0 9 * * 1", "Asia/Shanghai")
    now = datetime(2024, 6, 18, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert previous_fire_time(trig, now).isoformat() == "2024-06-17T09:00:00+08:00"
    assert previous_fire_time(trig, datetime(2024, 6, 17, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))).day == 17


# -- the config file -----------------------------------------------------------------------------

GOOD = """
repositories:
  - repo: example-org/example-repo
    source: file
    path: data/{week}.json
    schedule: {cron: "0 9 * * 1", timezone: Asia/Shanghai}
    destinations:
      - {slack: C_DIGEST}
      - {feishu: oc_team, lang: zh}
  - repo: vllm-project/vllm
    schedule: {weekly: "mon 09:00", timezone: America/Los_Angeles}
    destinations: [{slack: C_VLLM}]
admins: {slack: [T_TEST:U_ADMIN]}
"""


def test_good_config_and_planned_jobs():
    cfg = parse_config(GOOD, "t.yaml")
    assert [r.job_id for r in cfg.repositories] == ["digest:example-org/example-repo", "digest:vllm-project/vllm"]
    assert cfg.repositories[0].destinations[1].platform == "feishu"
    jobs = planned_jobs(cfg, datetime(2026, 3, 5, 12, 0, tzinfo=ZoneInfo("UTC")))
    assert jobs[0].next_run.isoformat() == "2026-03-09T09:00:00+08:00"
    assert jobs[1].next_run.isoformat() == "2026-03-09T09:00:00-07:00"  # after the 2026-03-08 DST change


@pytest.mark.parametrize("change, where", [
    (("repositories", 0, "destinations", 0, "slak", "C"), "repositories.0.destinations.0.slak: unknown key"),
    (("repositories", 0, "schedule", "cron", "0 9 * * 9"), "repositories.0.schedule"),
    (("repositories", 0, "schedule", "timezone", "Mars/Base"), "repositories.0.schedule.timezone"),
    (("repositories", 0, "repo", "nope"), "repositories.0.repo"),
    (("repositories", 0, "path", "data/x.json"), "repositories.0"),
    (("typo", "x"), "typo: unknown key"),
    (("repositories", 0, "destinations", 0, "feishu", "oc_x"), "repositories.0.destinations.0: give exactly one of"),
    (("repositories", 0, "destinations", 0, {"platform": "discord", "target": "X"}),
     "repositories.0.destinations.0.platform: unknown chat platform 'discord' (known: feishu, slack)"),
    (("admins", "teams", ["T1:U1"]), "admins.teams: unknown chat platform"),
])
def test_errors_name_the_key(change, where):
    data = yaml.safe_load(GOOD)
    *path, key, value = change
    node = data
    for p in path:
        node = node[p]
    node[key] = value
    with pytest.raises(InputError) as err:
        parse_config(yaml.safe_dump(data), "t.yaml")
    assert where in err.value.user_message
    assert "\n" not in err.value.user_message


def test_example_config_validates_against_model_and_schema(tmp_path):
    example = ROOT / "config.example.yaml"
    loaded = load_config(example)
    assert loaded.config.repositories[0].schedule.timezone == "Asia/Shanghai"
    schema = config_schema()
    jsonschema.validate(yaml.safe_load(example.read_text()), schema)
    json.dumps(schema)


def test_missing_config_is_one_line(monkeypatch):
    monkeypatch.delenv("PRHUB_CONFIG", raising=False)
    with pytest.raises(InputError, match="--config"):
        load_config(None)
    with pytest.raises(InputError, match="cannot read"):
        load_config("/nonexistent/prhub.yaml")
    assert isinstance(parse_config(GOOD, "x"), BotConfig)


@pytest.mark.parametrize("admins, ok", [("{slack: [T0123:U0456], feishu: [tenant_1:ou_xxx]}", True),
                                        ("{slack: [U0456]}", False), ("{feishu: [ou_xxx]}", False),
                                        ("{slack: ['T0123:']}", False)])
def test_admins_are_scoped_to_a_workspace(admins, ok):
    """Issue 9, failure 8: a bare admin id is a config error naming the new form."""
    text = ("repositories: [{repo: a/b, source: github, schedule: {cron: '0 9 * * 1'}, destinations: [{slack: C1}]}]\n"
            f"admins: {admins}\n")
    if ok:
        assert parse_config(text, "t.yaml").admins.get("slack", ()) in ((), ("T0123:U0456",))
        return
    with pytest.raises(InputError) as e:
        parse_config(text, "t.yaml")
    assert "admins." in e.value.user_message and "WORKSPACE:USER" in e.value.user_message
    assert "T0123:U0456" in e.value.user_message and "tenant_key:ou_xxx" in e.value.user_message


def test_destination_shorthand_and_full_form_are_one_destination():
    short = parse_config(GOOD, "t.yaml").repositories[0].destinations
    full = parse_config(GOOD.replace("{slack: C_DIGEST}", "{platform: slack, target: C_DIGEST}")
                        .replace("{feishu: oc_team, lang: zh}", "{platform: feishu, target: oc_team, lang: zh}"),
                        "t.yaml").repositories[0].destinations
    assert short == full
    assert [(d.platform, d.target, d.lang) for d in short] == [("slack", "C_DIGEST", "en"), ("feishu", "oc_team", "zh")]
    assert parse_config(GOOD, "t.yaml").admins == {"slack": ("T_TEST:U_ADMIN",)}
    schema = config_schema()
    for form in ({"slack": "C1"}, {"platform": "feishu", "target": "oc_1", "lang": "zh"}):
        jsonschema.validate(form, {"$defs": schema["$defs"], "$ref": "#/$defs/DestinationConfig"})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"slak": "C1"}, {"$defs": schema["$defs"], "$ref": "#/$defs/DestinationConfig"})


@pytest.mark.parametrize("value, ok", [(1, True), (50, True), (0, False), (51, False), ("many", False)])
def test_cards_top_risks_is_1_to_50_with_a_one_line_error(value, ok):
    data = yaml.safe_load(GOOD)
    data["repositories"][1]["cards"] = {"top_risks": value}
    if ok:
        cfg = parse_config(yaml.safe_dump(data), "t.yaml")
        assert cfg.repositories[1].cards.top_risks == value and cfg.repositories[0].cards.top_risks == 8
        return
    with pytest.raises(InputError) as err:
        parse_config(yaml.safe_dump(data), "t.yaml")
    msg = err.value.user_message
    assert "repositories.1.cards.top_risks" in msg and "\n" not in msg
    assert ("50" in msg) if value == 51 else True


@pytest.mark.parametrize(("server", "workers", "queue"), [
    ({}, 16, 64),  # 2 x the 8 HTTP threads; 4 x the workers
    ({"threads": 3}, 6, 24),
    ({"reply_workers": 1}, 1, 4),  # the lower bound
    ({"reply_workers": 256, "reply_queue": 10_000}, 256, 10_000),  # the upper bounds
    ({"threads": 4, "reply_queue": 7}, 8, 7),
])
def test_reply_workers_and_queue_defaults(server, workers, queue):
    from scheduler.config import ServerSettings

    s = ServerSettings(**server)
    assert (s.workers, s.queue) == (workers, queue)


@pytest.mark.parametrize("bad", [{"reply_workers": 0}, {"reply_workers": 257}])
def test_reply_workers_out_of_range(bad):
    from pydantic import ValidationError

    from scheduler.config import ServerSettings

    with pytest.raises(ValidationError):
        ServerSettings(**bad)
