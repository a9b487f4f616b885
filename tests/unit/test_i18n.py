from chatbot.analysis import RISK_ORDER
from chatbot.i18n import catalog_keys, lines_text, tr


def test_catalogs_have_the_same_keys():
    assert catalog_keys("en") == catalog_keys("zh")


def test_every_risk_tag_has_names_and_recommendations():
    for tag in RISK_ORDER:
        for lang in ("en", "zh"):
            assert tr(lang, f"risk.{tag}")
            assert tr(lang, f"rec.{tag}", target="#1", prs="#1", n=1, modules="m", min=30, name="x")
            assert tr(lang, f"obs.{tag}", n=1, name="x", items="#1", prs="#1", min=30, k=1, quotes="q", story="s",
                      pairs="p")


def test_lines_text():
    assert lines_text(1234, 5) == "+1,234/-5"


def test_a_count_of_one_takes_the_singular_entry():
    assert tr("en", "trends.meta", n=1, total=5) == "1 week · merged PRs 5 in all"
    assert tr("en", "trends.meta", n=2, total=5) == "2 weeks · merged PRs 5 in all"
    assert tr("en", "trends.meta", n=0, total=0) == "0 weeks · merged PRs 0 in all"
    assert tr("zh", "trends.meta", n=1, total=5) == "共 1 周 · 合并 PR 合计 5"
    assert tr("en", "hist.reach", week="2026-W19", n=1).endswith("(1 week before this one).")


def test_a_template_space_between_chinese_and_an_inserted_chinese_value_goes():
    """zh templates space an inserted PR link or Latin word ("为 #41035"), but a value that is Chinese
    itself closes up ("为风险 1 所列的 PR", not "为 风险 1"); spaces inside values, English texts and
    a Latin side of a boundary stay."""
    from chatbot.i18n import tr

    obs = tr("zh", "rec.target_obs", obs=1)
    assert obs == "风险 1 所列的 PR"  # the space inside the template, before a digit, stays
    assert tr("zh", "rec.revert", target=obs).startswith("为风险 1 所列的 PR 回滚掉的工作")
    assert tr("zh", "rec.revert", target="#41035").startswith("为 #41035 回滚掉的工作")
    assert tr("zh", "rec.core-path-change", modules="模型运行器、硬件平台", target="#1").startswith(
        "请模型运行器、硬件平台的维护者重新审阅 #1，")
    assert tr("zh", "rec.core-path-change", modules="模型运行器、MoE", target="#1").startswith("请模型运行器、MoE 的维护者")
    assert tr("zh", "rec.revert", target="模型 运行器").startswith("为模型 运行器回滚")  # the value's own space stays, both gaps close
    # nor beside full-width punctuation (lang.tight): "（风险 2）补上", not "（风险 2） 补上"
    assert tr("zh", "rec.follow-up-fix", target=tr("zh", "rec.target", prs="#42706", obs=2)).startswith("为 #42706（风险 2）补上")
    en = tr("en", "rec.revert", target="#41035")
    assert en.startswith("Open a tracking issue to re-land what #41035 reverted")
    assert "\ue000" not in tr("zh", "rec.revert", target=obs) and "\ue001" not in tr("zh", "rec.revert", target=obs)
    assert tr("zh", "rec.revert", target="\x00").startswith("为 \x00 回滚")  # a caller's own marker value passes through
