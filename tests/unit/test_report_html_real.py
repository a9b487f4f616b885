"""The HTML report on the real vLLM weeks (skipped without ../shared), and its escaping (always)."""

import re

import pytest

from tests.digests import written_digest
from chatbot.history import build_trends, week_history, week_stats
from chatbot.i18n import tr
from chatbot.render.html import SECTION_IDS, ChartImage, render_html
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs
from tests.hostile_digest import HOSTILE, hostile_digest

HEADINGS = ("h.summary", "h.highlights", "h.trends", "h.risks", "h.key_prs", "h.recommendations")


def digest(week, rules, lang, prs):
    return written_digest(prs, repo="vllm-project/vllm", week=IsoWeek.parse(week), rules=rules, lang=lang)


@pytest.fixture(scope="module", params=["en", "zh"])
def page(request, vllm_rules):
    prs = week_prs("2026-W19") + week_prs("2026-W20")
    d19 = digest("2026-W19", vllm_rules, request.param, prs)
    d = digest("2026-W20", vllm_rules, request.param, prs)
    earlier = {p.author.login for p in week_prs("2026-W19") if p.author}
    hist = week_history(d, previous=week_stats(d19), earlier_authors=earlier, history_start="2026-W19", history_weeks=1)
    trends = build_trends(d.repo, [week_stats(d19), week_stats(d)])
    chart = ChartImage("labels", "Labels <x>", b"\x89PNG fake")
    return d, hist, trends, chart, render_html(d, history=hist, trends=trends, charts=[chart])


def test_every_section_heading_and_anchor(page):
    d, *_, html = page
    for sid, key in zip(SECTION_IDS, HEADINGS):
        assert f'<section id="{sid}">' in html
        assert f"<h2>{tr(d.lang, key)}<a" in html
    assert f'<html lang="{"zh-CN" if d.lang == "zh" else "en"}">' in html


def test_every_key_pr_is_linked_in_the_sortable_table(page):
    d, *_, html = page
    table = html[html.index('id="key-pr-table"'):]
    table = table[: table.index("</table>")]
    for p in d.key_prs:
        assert f'<a class="pr" href="https://github.com/vllm-project/vllm/pull/{p.number}">#{p.number}</a>' in table
    assert len(re.findall(r"<tr data-pr=", table)) == len(d.key_prs) == 24


def test_week_over_week_delta_and_new_contributors(page):
    d, hist, *_, html = page
    text = re.sub(r"<[^>]+>", "", html)
    if d.lang == "en":
        assert "bugfix 77, +3 vs 2026-W19" in text
    else:
        assert "bugfix 77（较 2026-W19 +3）" in text
    assert hist.new_contributors and all(c.login not in {p.author.login for p in week_prs("2026-W19") if p.author} for c in hist.new_contributors)
    assert 'id="new-contributors"' in html and hist.new_contributors[0].login in html


def test_self_contained_and_byte_identical(page, vllm_rules):
    d, hist, trends, chart, html = page
    assert render_html(d, history=hist, trends=trends, charts=[chart]) == html
    assert "data:image/png;base64," in html
    assert not re.search(r"""(src|href)=["'](?!data:|https://github\.com/|#)""", html)
    assert "<link" not in html and "@import" not in html and "Labels &lt;x&gt;" in html


def test_hostile_titles_are_escaped():
    d = hostile_digest(lang="en")
    html = render_html(d)
    assert html.count("<script>") == 1  # the sort script only
    assert "&lt;script&gt;" in html and "&#34;a &gt; b&#34;" in html
    assert "<font" not in html and "<at " not in html
    assert not re.search(r'href="(?!https?://|#)', html)


def test_main_directions_count_each_storyline_as_the_markdown_does(page):
    """The report once said "DeepSeek-V4 (#41263, #41812, #42236 and 2 more)" of a 10-PR storyline
    (it counted the five cited PRs); it now gives each storyline's size, as the Markdown digest."""
    from chatbot.render.markdown import render_markdown

    d, *_, html = page
    summary = html[html.index("<li>" + tr(d.lang, "sum.directions", themes="")[:-1]):]  # the summary's line
    summary = summary[: summary.index("</li>")]
    sizes = [int(n) for n in re.findall(r"[(（](\d+)[)）]", summary)]
    assert sizes == [th.total for th in d.themes] and sum(sizes) > sum(len(th.prs) for th in d.themes)
    md = render_markdown(d)
    for th in d.themes:
        assert tr(d.lang, "paren", text=th.name, inner=th.total) in md


@pytest.mark.parametrize("with_history", [True, False])
def test_the_history_sentences_are_said_once(page, with_history, vllm_rules):
    """The report said "The store holds no PRs of the previous week" in the summary and again under
    "Week over week", the week-over-week line twice, and "The store holds nothing before this week"
    twice: each history sentence now appears once."""
    from chatbot.history import WeekHistory

    d, hist, trends, chart, html = page
    if not with_history:
        html = render_html(d, history=WeekHistory(week=d.week), trends=None, charts=[])
    text = re.sub(r"<[^>]+>", "", html)
    for line in re.findall(r"<li>(.*?)</li>|<p>(.*?)</p>", html):
        sentence = re.sub(r"<[^>]+>", "", line[0] or line[1]).strip()
        if len(sentence) > 30 and "#" not in sentence and sentence[-1] in ".。":  # sentences, not headings
            assert text.count(sentence) == 1, sentence
    lead = "Compared with 2026-W19" if d.lang == "en" else "与 2026-W19 相比"  # hist.previous
    assert (text.count(lead) == 1) if with_history else tr(d.lang, "hist.no_previous") in text
