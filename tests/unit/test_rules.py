import json

import pytest

from chatbot.errors import RulesError
from chatbot.rules import Rules, default_rules_for, load_rules, parse_rules, shipped_rules, shipped_rules_names


def test_shipped_rules_load():
    assert shipped_rules_names() == ["generic", "vllm"]
    vllm = shipped_rules("vllm")
    assert [m.id for m in vllm.modules][:3] == ["spec-decode", "attention", "moe"]
    assert vllm.key_prs == 24
    assert vllm.thresholds.missing_tests_min_lines == 100
    assert (vllm.thresholds.risk_observations, vllm.thresholds.recommendations) == (8, 6)


def test_default_rules_by_repository():
    assert default_rules_for("vllm-project/vllm").repositories == ("vllm-project/vllm",)
    assert default_rules_for("VLLM-Project/vLLM").repositories == ("vllm-project/vllm",)
    assert default_rules_for("example-org/example-repo") == shipped_rules("generic")


@pytest.mark.parametrize(
    "text,where",
    [
        ("labelz: []", "labelz"),
        ("modules: [{id: a}]", "modules.0.paths"),
        ("modules: [{id: a, paths: ['!x']}]", "modules.0.paths"),
        ("modules: [{id: other, paths: [x/**]}]", "modules.0.id"),
        ("modules: [{id: a, paths: [a/**]}, {id: a, paths: [b/**]}]", "(top level)"),
        ("labels: [{name: x, titles: ['(unclosed']}]", "labels.0.titles"),
        ("thresholds: {large_change_files: 0}", "thresholds.large_change_files"),
        ("key_prs: many", "key_prs"),
    ],
)
def test_invalid_rules_name_the_key(text, where):
    with pytest.raises(RulesError) as info:
        parse_rules(text, "my.yaml")
    msg = info.value.user_message
    assert msg.startswith("rules file my.yaml: ")
    assert where in msg
    assert "\n" not in msg


def test_not_yaml_and_not_a_mapping():
    with pytest.raises(RulesError, match="line 1"):
        parse_rules("labels: [", "r.yaml")
    with pytest.raises(RulesError, match="expected a mapping"):
        parse_rules("- a\n- b\n", "r.yaml")


def test_missing_file(tmp_path):
    with pytest.raises(RulesError, match="cannot read"):
        load_rules(tmp_path / "nope.yaml")


def test_inline_flags_in_title_patterns_work():
    r = parse_rules("labels: [{name: rocm, titles: ['(?i)\\brocm\\b', 'AMD']}]", "x")
    assert r.compiled.title_patterns is not None
    assert r.compiled.title_patterns.matching("[ROCm] fix") == (0,)
    assert r.compiled.title_patterns.matching("[AMD] fix") == (1,)


def test_schema_is_published_and_forbids_extra_keys():
    schema = Rules.model_json_schema()
    assert schema["additionalProperties"] is False
    for key in ("labels", "prefix_aliases", "modules", "core_paths", "source_paths", "test_paths",
                "dependency_paths", "security_paths", "security_keywords", "ai_coauthor_patterns",
                "thresholds", "key_prs"):
        assert key in schema["properties"], key
    json.dumps(schema)


def test_duplicate_keys_are_errors():
    with pytest.raises(RulesError, match=r"line 3: key 'key_prs' appears twice"):
        parse_rules("key_prs: 10\nmodules: []\nkey_prs: 12\n", "r.yaml")


def test_display_names_by_language_and_the_old_zh_form():
    new = parse_rules("modules: [{id: spec, name: {en: speculative decoding, zh: 投机解码}, paths: [s/**]}]\n"
                      "topics: [{id: dsv4, name: {en: DeepSeek-V4, zh: 深度求索 V4}}]", "<t>")
    old = parse_rules("modules: [{id: spec, name: speculative decoding, zh: 投机解码, paths: [s/**]}]\n"
                      "topics: [{id: dsv4, name: DeepSeek-V4, zh: 深度求索 V4}]", "<t>")
    assert new == old
    assert new.module_display("spec", "zh") == "投机解码"
    assert new.module_display("spec", "en") == "speculative decoding"
    assert new.topics[0].display("zh") == "深度求索 V4" and new.topics[0].en == "DeepSeek-V4"
    # A language without a name falls back to English; no English name falls back to the id.
    only_en = parse_rules("modules: [{id: spec, name: speculative decoding, paths: [s/**]}]", "<t>")
    assert only_en.module_display("spec", "zh") == "speculative decoding"
    only_zh = parse_rules("modules: [{id: spec, name: {zh: 投机解码}, paths: [s/**]}]", "<t>")
    assert (only_zh.module_display("spec", "en"), only_zh.module_display("spec", "zh")) == ("spec", "投机解码")
    assert shipped_rules("vllm").modules[0].name == {"en": "speculative decoding", "zh": "投机解码"}


@pytest.mark.parametrize("text,message", [
    ("modules: [{id: a, name: {fr: A}, paths: [a/**]}]",
     "modules.0.name: display name in unknown language 'fr': use en, zh (the languages of chatbot/catalogs)"),
    ("modules: [{id: a, name: {en: ''}, paths: [a/**]}]", "modules.0.name: display names must not be empty"),
    ("topics: [{id: a, name: {zh: 甲}}]", "topics.0.name: a topic needs an English name (en: ...)"),
])
def test_display_names_are_checked(text, message):
    with pytest.raises(RulesError) as err:
        parse_rules(text, "<t>")
    assert err.value.user_message == f"rules file <t>: {message} (see `prhub rules schema`)"
