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
