from chatbot.analysis import RISK_ORDER
from chatbot.i18n import catalog_keys, lines_text, tr


def test_catalogs_have_the_same_keys():
    assert catalog_keys("en") == catalog_keys("zh")


def test_every_risk_tag_has_names_and_recommendations():
    for tag in RISK_ORDER:
        for lang in ("en", "zh"):
            assert tr(lang, f"risk.{tag}")
            assert tr(lang, f"rec.{tag}", prs="#1", n=1, modules="m", min=30)


def test_lines_text():
    assert lines_text(1234, 5) == "+1,234/-5"
