"""The shipped vLLM rules data, fix by fix (issue 17, item 1), each on the real PR it corrects.

Every test names a merged PR of W20 or W27 (``../shared/data/vllm-threads``) whose labels, modules,
topic or risk tags were wrong before the fix, so putting the old glob, alias or keyword back fails
here. ``test_label_table_of_w27`` prints the W27 label counts beside the seed report's. Skipped
without ../shared.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from chatbot.analysis import PathClassifier, labels_for
from chatbot.digest import _eligible, _gists, _pool, analyze_week, build_digest, write
from chatbot.rules import shipped_rules
from chatbot.storylines import _topic_patterns, plan
from chatbot.weeks import IsoWeek
from tests.conftest import thread_prs, week_prs
from tests.digests import written_digest

RULES = shipped_rules("vllm")


@cache
def _week(week: str):
    wa = analyze_week(thread_prs(week), repo="vllm-project/vllm", week=IsoWeek.parse(week), rules=RULES)
    return {a.pr.number: a for a in wa.analyses}


def _pr(week: str, number: int):
    return _week(week)[number]


def _topic(title: str) -> str | None:
    return next((tid for tid, _, rx in _topic_patterns(RULES) if rx.search(title)), None)


# --- tpu: anchored globs, not *tpu* (which matched every path holding "output") ----------------

@pytest.mark.parametrize("week,number", [("2026-W27", 46800), ("2026-W27", 47283), ("2026-W27", 47551),
                                         ("2026-W20", 39568)])
def test_an_output_path_is_not_tpu(week, number):
    a = _pr(week, number)
    classify = PathClassifier(RULES.compiled)
    assert "tpu" not in a.labels
    outputs = [f.path for f in a.pr.files if "output" in f.path]
    assert outputs and not any("platforms" in classify(p).modules for p in outputs)


def test_a_real_tpu_path_keeps_the_label():
    a = _pr("2026-W20", 35024)  # touches vllm/.../tpu.py (the TPU platform's tokenizer import)
    assert "tpu" in a.labels
    assert sum(1 for x in _week("2026-W27").values() if "tpu" in x.labels) == 0
    assert sum(1 for x in _week("2026-W20").values() if "tpu" in x.labels) == 1


# --- new-model: a title that adds a model on a PR that registers one ---------------------------

def test_new_model_needs_an_adding_title_and_the_registry():
    w20 = [n for n, a in sorted(_week("2026-W20").items()) if "new-model" in a.labels]
    w27 = [n for n, a in sorted(_week("2026-W27").items()) if "new-model" in a.labels]
    assert w20 == [41254, 41826, 42705]  # MiniCPM-V 4.6, PEagle speculators, InternS2 Preview
    assert w27 == [44785, 46853]  # LLaVA-OneVision-2, Laguna XS.2.1 DFlash drafter


@pytest.mark.parametrize("week,number", [("2026-W20", 39949), ("2026-W27", 47058), ("2026-W27", 46995)])
def test_touching_a_model_file_is_not_a_new_model(week, number):
    assert "new-model" not in _pr(week, number).labels


def test_the_new_model_prefix_is_the_label():
    classify = PathClassifier(RULES.compiled)
    a = _pr("2026-W27", 44785)
    pr = a.pr.model_copy(update={"title": "[New Model] " + a.pr.title, "files": ()})
    assert "new-model" in labels_for(pr, RULES.compiled, classify)


# --- vllm/models/** (the per-vendor model tree) is model support -------------------------------

@pytest.mark.parametrize("number", [46730, 47083, 47269])
def test_the_new_model_tree_is_in_models(number):
    a = _pr("2026-W27", number)
    assert any(f.path.startswith("vllm/models/") for f in a.pr.files)
    assert a.primary_module == "models"


def test_a_drafter_under_the_new_tree_is_speculative_decoding():
    classify = PathClassifier(RULES.compiled)
    assert "spec-decode" in classify("vllm/models/qwen/qwen3_dflash.py").modules


# --- topics: GPU<->CPU syncs are not the CPU backend -------------------------------------------

def test_gpu_cpu_syncs_are_their_own_topic():
    assert _topic(_pr("2026-W20", 41429).pr.title) == "gpu-cpu-sync"  # "Eliminate various GPU<->CPU syncs"


@pytest.mark.parametrize("week,number", [("2026-W27", 42920), ("2026-W27", 44639), ("2026-W20", 42225)])
def test_a_cpu_tagged_title_is_the_cpu_backend(week, number):
    assert _topic(_pr(week, number).pr.title) == "cpu-backend"


def test_offload_to_cpu_is_not_the_cpu_backend():
    # "[Bugfix][SimpleCPUOffloadBackend] Dedup in-flight CPU offload stores" is KV offload
    assert _topic(_pr("2026-W20", 41289).pr.title) != "cpu-backend"


# --- security keywords: DoS, OOB / out-of-bounds, mTLS / HTTPS ---------------------------------

@pytest.mark.parametrize("number", [45890, 47010, 47101])
def test_dos_and_mtls_prs_are_security_sensitive(number):
    assert "security-sensitive" in _pr("2026-W27", number).risk_tags


def test_a_url_is_not_https_and_dos_needs_its_case():
    rx = RULES.compiled.security_keywords
    assert rx is not None
    assert not rx.search("see https://github.com/vllm-project/vllm/pull/1")
    assert not rx.search("dos and don'ts of the config")
    assert rx.search("serve over HTTPS") and rx.search("an out-of-bounds read") and rx.search("OOB write")


# --- dependency-change: manifests and pins, not Dockerfiles ------------------------------------

def test_a_dockerfile_edit_is_not_a_dependency_change():
    a = _pr("2026-W20", 40453)  # "Update Dockerfile.rocm for AINIC & Thor NIC"
    assert all(f.path.startswith("docker/") for f in a.pr.files)
    assert "dependency-change" not in a.risk_tags


def test_a_pin_bump_is_a_dependency_change():
    assert "dependency-change" in _pr("2026-W27", 46683).risk_tags  # "Bump flashinfer version to 0.6.13"


# --- data_paths: tuned configs are data ---------------------------------------------------------

def test_tuned_configs_are_data_wherever_they_sit():
    classify = PathClassifier(RULES.compiled)
    a = _pr("2026-W27", 44010)  # Helion configs for fused_qk_norm_rope: 577 code lines, not thousands
    assert a.code_lines == 577
    assert classify("vllm/model_executor/layers/mamba/configs/E=8,N=64,device_name=NVIDIA_H100.json").data
    assert not classify("vllm/model_executor/layers/mamba/configs/__init__.py").data


def test_label_table_of_w27(capsys):
    counts = Counter(lb for a in _week("2026-W27").values() for lb in a.labels)
    seed = {"v1": 75, "bugfix": 120}  # the counts seed 001 states (section 3)
    with capsys.disabled():
        print("\nW27 labels (prhub | seed 001):")
        for label, n in counts.most_common():
            print(f"  {label:24} {n:4}" + (f" | {seed[label]}" if label in seed else ""))
    assert counts["tpu"] == 0 and counts["new-model"] == 2
    assert abs(counts["v1"] - seed["v1"]) <= 2  # 76: the seed counts a window of 246 PRs
    assert counts["bugfix"] == 89  # labelled, [Bugfix]-prefixed or a title starting with Fix (65 without the last)


# --- bugfix from a title whose first word is Fix (after its [tags]) ------------------------------

def test_a_forward_fix_is_a_bug_fix_and_follows_up_its_pr():
    a = _pr("2026-W27", 47151)  # "Forward fix nightly errors from #44589"
    assert "bugfix" in a.labels and "follow-up-fix" in a.risk_tags
    assert 47151 in _pr("2026-W27", 44589).fixed_by


# --- storyline topics: tags first, paths, requires, one-PR topics give their PR up ---------------

def _themes(week: str):
    return {t.module: t.prs for t in written_digest(thread_prs(week), repo="vllm-project/vllm",
                                                    week=IsoWeek.parse(week), rules=RULES, lang="en").themes}


def test_the_leading_tag_names_the_storyline():
    # "[Rust Frontend] Add Harmony Renderer for GPT-OSS": the Rust frontend's, not gpt-oss's
    assert 46800 in _themes("2026-W27")["topic:rust-frontend"]


def test_dependency_updates_need_a_bump_title_and_a_manifest():
    assert {47551, 46683, 47304} <= set(_themes("2026-W27")["topic:dependencies"])  # hub, FlashInfer, DeepGEMM tag
    w17 = {p.number: p for p in week_prs("2026-W17")}
    rx = next(rx for tid, _, rx in _topic_patterns(RULES) if tid == "dependencies")
    assert rx.search(w17[40465].title)  # "[UX] Bump version in CG memory profiling log message" ...
    assert [f.path for f in w17[40465].files] == ["vllm/v1/worker/gpu_worker.py"]
    d = written_digest(week_prs("2026-W17"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W17"), rules=RULES)
    deps = next(t.prs for t in d.themes if t.module == "topic:dependencies")
    assert 40465 not in deps and 40669 in deps  # ... changes no manifest; "Bump CUDA to 13.0.2" does


def test_a_one_pr_topic_gives_its_pr_to_the_next_choice():
    # "[Frontend] Add Streaming Parser Engine and new Kimi k2.5/k2.6/k2.7 Parser": Kimi has no second PR
    # this week, so the PR joins the parsers topic beside "[Frontend] [Parser] Port DeepSeek V4 ..."
    d = build_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek.parse("2026-W27"), rules=RULES)
    t = write(d, "en")
    by_a = {a.pr.number: a for a in d.analysis.analyses}
    sp = plan(_pool(_eligible(t.prs, by_a)), _gists(t.prs), RULES, "en", {n: a.pr.files for n, a in by_a.items()})
    assert sp.group_of[46610] == sp.group_of[45877] == "topic:parsers"


def test_modelrunner_v2_spelled_apart_is_model_runner_v2():
    assert _topic(_pr("2026-W27", 44443).pr.title) == "model-runner-v2"  # "[ModelRunner V2] Enable by default ..."


# --- kernel tests: tests/kernels/** is kernels, its attention/moe/quantization folders their module

@pytest.mark.parametrize("week,number,primary", [
    ("2026-W20", 41536, "kernels"),    # fused mhc kernel + its test; was "models" (a 59-line model hook)
    ("2026-W27", 45140, "kernels"),    # [Kernel][XPU] kernel unit tests only; was "other"
    ("2026-W20", 41812, "attention"),  # sparse MLA kernels with tests/kernels/attention; was "platforms"
])
def test_kernel_tests_count_towards_their_module(week, number, primary):
    assert _pr(week, number).primary_module == primary


def test_kernel_tests_of_a_named_module_stay_out_of_kernels():
    classify = PathClassifier(RULES.compiled)
    assert classify("tests/kernels/test_mhc_kernels.py").modules == ("kernels",)
    assert classify("tests/kernels/attention/test_flash_attn.py").modules == ("attention",)
    assert classify("tests/kernels/moe/test_moe.py").modules == ("moe",)
    assert classify("tests/kernels/quantization/test_fp8.py").modules == ("quantization",)


# --- security-sensitive: a title or path is stronger evidence than a description --------------

def test_security_observation_names_titles_before_descriptions():
    # W27: #46301 ("index out of bounds" in its description: a CUDA crash) and #47383 ("overflow") were
    # named and recommended for a security review before "fix(security): prevent image decompression
    # bomb" (#47010), whose title says it
    d = written_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek(2026, 27), rules=RULES)
    sec = next(r for r in d.risks if r.kind == "security-sensitive")
    assert sec.prs[:4] == (45890, 47010, 47101, 47007)  # titles ("HTTPS", "security", "TLS"), importance order
    assert sec.named == (45890, 47010, 47101)
    by = {p.number: p for p in d.prs}
    assert by[47010].risk_weights == {"security-sensitive": 1} and by[46301].risk_weights == {}
