"""WMT25 and WMT26 rankings: the organisers' own ranking code (tests/data/wmt_scripts, see
PROVENANCE.md) and ours on identical input must reach identical decisions; the signed-rank
test and the BCa bootstrap underneath must equal scipy's."""

from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from scipy import stats

from metrics.rankings._bca import bca_lower_bound
from metrics.rankings._signed_rank import signed_rank_greater
from metrics.rankings.wmt25 import rank_wmt25, wave_differences
from metrics.rankings.wmt26 import item_scores, rank_wmt26, significantly_better

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "wmt_scripts"


def _run_script(name: str, namespace: dict) -> dict:
    code = (SCRIPTS / name).read_text(encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, name, "exec"), namespace)  # noqa: S102 - a stored test fixture
    return namespace


def _scipy_wilcoxon(d: np.ndarray) -> float:
    if d.size == 0:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(stats.wilcoxon(d, alternative="greater").pvalue)
        except ValueError:  # a single zero difference: nothing to permute
            return math.nan


@pytest.mark.parametrize("kind", ["continuous", "integers", "rounded", "thirds"])
def test_signed_rank_equals_scipy_wilcoxon(kind):
    rng = np.random.default_rng(7)
    for n in [0, 1, 2, 3, 5, 8, 12, 13, 14, 20, 40, 50, 51, 80, 400]:
        for _ in range(8):
            if kind == "continuous":
                d = rng.normal(0.3, 1, n)
            elif kind == "integers":
                d = rng.integers(-3, 5, n).astype(float)
            elif kind == "rounded":
                d = np.round(rng.normal(0.2, 1, n), 1)
            else:
                d = rng.integers(-20, 30, n) / 3.0
            mine, theirs = signed_rank_greater(d), _scipy_wilcoxon(d)
            if math.isnan(theirs):
                assert math.isnan(mine) or mine == 1.0, (n, d)
                continue
            assert mine == pytest.approx(theirs, rel=1e-12, abs=1e-15), (n, d)
            assert (mine < 0.025) == (theirs < 0.025)


def _scipy_lower_bound(samples, seed):
    statistic = (
        np.mean
        if len(samples) == 1
        else lambda a, b, axis=-1: np.mean(a, axis=axis) - np.mean(b, axis=axis)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.bootstrap(
            samples,
            statistic=statistic,
            vectorized=True,
            n_resamples=100,
            confidence_level=0.95,
            alternative="greater",
            rng=np.random.default_rng(seed),
        ).confidence_interval.low


def test_bca_lower_bound_equals_scipy_bootstrap():
    gen = np.random.default_rng(5)
    bitwise = 0
    for trial in range(300):
        n = int(gen.choice([2, 3, 5, 10, 40, 200, 1500]))
        x = gen.integers(0, 101, n) / float(gen.choice([1, 2, 3]))
        samples = [
            (x - gen.integers(0, 101, n),),  # paired differences
            (x, gen.integers(0, 101, int(gen.choice([2, 4, 30, 300]))) / 2.0),  # two means
            (np.full(n, float(gen.choice([0.1, 5.0, 1 / 3]))),),  # no spread: degenerate
        ][trial % 3]
        seed = int(gen.integers(2**31))
        mine = bca_lower_bound(samples, np.random.default_rng(seed), n_resamples=100)
        theirs = _scipy_lower_bound(samples, seed)
        if math.isnan(theirs):
            assert math.isnan(mine)
            bitwise += 1
            continue
        assert mine == pytest.approx(theirs, rel=1e-9, abs=1e-12)
        assert (mine > 0) == (theirs > 0)
        bitwise += mine == theirs
    # The same draws: most bounds are equal to the last bit, not just close.
    assert bitwise > 250


def test_wave_differences_pair_every_wave_with_every_wave_in_the_script_order():
    a = np.array([[1.0, 2.0], [10.0, 20.0]])  # waves x items
    b = np.array([[0.0, np.nan], [5.0, 7.0]])
    assert wave_differences(a, b).tolist() == [1.0, 5.0, 13.0, -4.0, -5.0, 10.0]


def _wmt25_data(seed: int, n_systems: int = 6, n_items: int = 40):
    """Data in the script's shape, and the same as a (systems, waves, items) array."""
    rng = np.random.default_rng(seed)
    names = [f"sys{k}" for k in range(n_systems)]
    quality = rng.normal(0, 6, n_systems)
    domains = ["news", "speech", "social"]
    data_local, array = [], np.full((n_systems, 2, n_items), np.nan)
    for i in range(n_items):
        doc = f"en-cs_CZ_#_{domains[i % 3]}_#_doc{i // 4}"
        difficulty = rng.normal(60, 15)
        scores = {}
        for s, name in enumerate(names):
            waves = []
            for w in range(2):
                if rng.random() < 0.15:
                    value = math.nan  # not judged in this wave
                else:
                    value = difficulty + quality[s] + rng.normal(0, 12)
                    value = float(np.clip(np.round(value), 0, 100))
                array[s, w, i] = value
                waves.append({"score": value})
            scores[name] = waves
        data_local.append({"doc_id": doc, "scores": scores})
    return names, data_local, array, [d["doc_id"].split("_#_")[1] for d in data_local]


@pytest.mark.parametrize("seed", range(8))
def test_wmt25_ranking_equals_the_script(seed):
    names, data_local, array, item_domains = _wmt25_data(seed)
    domains = sorted(set(item_domains))
    script = _run_script(
        "wmt25_compute_clusters_excerpt.py.txt", {"data_local": data_local, "domains": domains}
    )
    info = script["systems_info"]
    ends = script["does_cluster_end_here"]
    script_clusters, cluster = [], 1
    for position in range(len(info)):
        script_clusters.append(cluster)
        if position + 1 != len(info) and ends(position + 1, [x[3] for x in info]):
            cluster += 1

    ranking = rank_wmt25(array, domains=item_domains)

    assert [names[s.system] for s in ranking.systems] == [x[0] for x in info]
    assert [s.rank_range for s in ranking.systems] == [x[3] for x in info]
    assert [s.cluster for s in ranking.systems] == script_clusters
    for ours, theirs in zip(ranking.systems, info, strict=True):
        assert ours.mean == theirs[1]
        assert ours.domain_means == theirs[2]


def test_wmt25_data_set_has_both_kinds_of_decisions():
    """The equality above means something only if ranges and clusters vary across seeds."""
    spans, clusters = set(), set()
    for seed in range(8):
        _, _, array, domains = _wmt25_data(seed)
        ranking = rank_wmt25(array, domains=domains)
        spans |= {s.rank_range[1] - s.rank_range[0] for s in ranking.systems}
        clusters.add(max(s.cluster for s in ranking.systems))
    assert 0 in spans and max(spans) >= 2
    assert 1 in clusters and max(clusters) >= 3


def _wmt26_data(seed: int, n_systems: int = 7, n_items: int = 36):
    rng = np.random.default_rng(seed)
    names = [f"model{k}" for k in range(n_systems)]
    quality = rng.normal(0, 5, n_systems)
    lines = []
    for line_i in range(n_items // 3):
        annotation, items = [], []
        for k in range(3):
            item_id = f"{['news', 'speech'][line_i % 2]}_###_doc{line_i}_###_{k}"
            shown = rng.choice(n_systems, size=3, replace=False)
            difficulty = rng.normal(65, 12)
            scores = np.clip(difficulty + quality + rng.normal(0, 8, n_systems), 0, 100)
            annotation.append({names[s]: {"score": int(scores[s])} for s in sorted(shown)})
            items.append({"item_id": item_id})
        lines.append({"annotation": annotation, "item": items})
        if rng.random() < 0.4:  # a second annotator on the same document
            lines.append(
                {
                    "annotation": [
                        {
                            m: {"score": min(100, v["score"] + int(rng.integers(-5, 6)))}
                            for m, v in a.items()
                        }
                        for a in annotation
                    ],
                    "item": items,
                }
            )
    # Everybody judged at least twice (every model on some item of the first lines).
    return lines


def _wmt26_matrix(script: dict) -> tuple[list[str], np.ndarray]:
    """The script's per-model item means, in its row and item order."""
    names = list(script["data_model_item_avg"])
    return names, np.array([script["data_model_item_avg"][m] for m in names])


@pytest.mark.parametrize("seed", range(10))
def test_wmt26_ranking_equals_the_script(seed, monkeypatch):
    data_local = _wmt26_data(seed)
    generator = np.random.default_rng(seed)
    # The script draws from NumPy's global state; both sides get one seeded generator.
    monkeypatch.setattr(
        scipy.stats, "bootstrap", functools.partial(scipy.stats.bootstrap, rng=generator)
    )
    script = _run_script(
        "wmt26_analyze_results_excerpt.py.txt",
        {"data_local": data_local, "participants_open": {}},
    )
    names, matrix = _wmt26_matrix(script)

    ranking = rank_wmt26(matrix, seed=seed)

    expected = script["data_typst"]
    assert [names[s.system] for s in ranking] == [row["model"] for row in expected]
    assert [s.mean for s in ranking] == [row["scores_mean"] for row in expected]
    assert [s.rank_range for s in ranking] == [(r["rank_top"], r["rank_bottom"]) for r in expected]
    labels = {"global": "yes_cluster", "local": "yes_local", "": "nothing"}
    assert [labels[s.boundary] for s in ranking] == [row["cluster"] for row in expected]


def test_wmt26_data_set_has_every_kind_of_boundary(monkeypatch):
    boundaries = set()
    for seed in range(10):
        data_local = _wmt26_data(seed)
        script = _run_script(
            "wmt26_analyze_results_excerpt.py.txt",
            {"data_local": data_local, "participants_open": {}},
        )
        boundaries |= {s.boundary for s in rank_wmt26(_wmt26_matrix(script)[1], seed=seed)}
    assert boundaries == {"global", "local", ""}


def test_wmt26_rank_range_stops_short_of_last_place_as_the_script_does():
    # Two systems that cannot be told apart: the script gives the first the range 1-1.
    scores = np.array([[50.0, 60.0, 70.0], [60.0, 50.0, 70.0]])
    ranking = rank_wmt26(scores, seed=0)
    assert [s.rank_range for s in ranking] == [(1, 1), (1, 2)]
    assert [s.boundary for s in ranking] == ["", ""]


def test_wmt26_decision_is_either_bootstrap():
    rng = np.random.default_rng(0)
    better = rng.integers(70, 90, 30).astype(float)
    worse = better - rng.integers(1, 8, 30)
    assert significantly_better(better, worse, np.random.default_rng(1))
    # No item in common: only the unpaired bootstrap can decide.
    apart = np.concatenate([better, np.full(30, np.nan)])
    below = np.concatenate([np.full(30, np.nan), worse - 30])
    assert significantly_better(apart, below, np.random.default_rng(1))
    assert not significantly_better(below, apart, np.random.default_rng(1))


def test_item_scores_average_each_outputs_judgments():
    matrix = item_scores([10, 20, 50, 80], [0, 0, 1, 1], [0, 0, 0, 2], 2, 3)
    assert matrix[0, 0] == 15 and math.isnan(matrix[0, 1]) and matrix[1, 2] == 80


def _appraise_wmt23():
    """The stored Appraise ESA export (WMT23 en-de), tutorials and quality checks left out:
    (system, segment, score) per judgment in the file's order."""
    from metrics.spans import appraise_segments, read_appraise_esa

    path = SCRIPTS.parent / "esa-appraise-export" / "240521rc6ESA.scores.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(read_appraise_esa(handle, name=path.name))
    segments = appraise_segments(rows)
    return [
        (row.system, segments[i], row.score)
        for i, row in enumerate(rows)
        if row.item_type == "TGT" and "tutorial" not in row.system
    ]


def test_wmt25_equals_the_script_on_the_appraise_export():
    judgments = _appraise_wmt23()
    systems = sorted({s for s, _, _ in judgments})
    segments = sorted({g for _, g, _ in judgments})
    table = np.full((len(systems), 2, len(segments)), np.nan)
    seen: dict = {}
    for system, segment, score in judgments:
        wave = seen.get((system, segment), 0)
        seen[(system, segment)] = wave + 1
        table[systems.index(system), wave, segments.index(segment)] = score
    data_local = [
        {
            "doc_id": f"en-de_#_general_#_{segment}",
            "scores": {
                name: [{"score": table[s, w, g]} for w in range(2)]
                for s, name in enumerate(systems)
            },
        }
        for g, segment in enumerate(segments)
    ]
    script = _run_script(
        "wmt25_compute_clusters_excerpt.py.txt", {"data_local": data_local, "domains": ["general"]}
    )
    ranking = rank_wmt25(table, domains=["general"] * len(segments))
    assert [(systems[s.system], s.rank_range) for s in ranking.systems] == [
        (x[0], x[3]) for x in script["systems_info"]
    ]
    assert len({s.rank_range for s in ranking.systems}) > 3  # not one block: decisions vary


def test_wmt26_equals_the_script_on_the_appraise_export(monkeypatch):
    judgments = _appraise_wmt23()
    data_local = [
        {"annotation": [{system: {"score": score}}], "item": [{"item_id": segment}]}
        for system, segment, score in judgments
    ]
    monkeypatch.setattr(
        scipy.stats,
        "bootstrap",
        functools.partial(scipy.stats.bootstrap, rng=np.random.default_rng(2026)),
    )
    script = _run_script(
        "wmt26_analyze_results_excerpt.py.txt",
        {"data_local": data_local, "participants_open": {}},
    )
    names, matrix = _wmt26_matrix(script)
    ranking = rank_wmt26(matrix, seed=2026)
    labels = {"global": "yes_cluster", "local": "yes_local", "": "nothing"}
    assert [(names[s.system], s.rank_range, labels[s.boundary]) for s in ranking] == [
        (r["model"], (r["rank_top"], r["rank_bottom"]), r["cluster"]) for r in script["data_typst"]
    ]
    assert {s.boundary for s in ranking} >= {"global", ""}


def test_the_esa_command_ranks_by_the_chosen_procedure(capsys):
    from metrics.cli import main

    path = SCRIPTS.parent / "esa-appraise-export" / "240521rc6ESA.scores.csv"
    common = ["esa", "--appraise", str(path), "--json"]
    common += ["--exclude-system", "ende-tutorial1", "--exclude-system", "ende-tutorial2"]
    reports = {}
    for procedure in ("wmt24", "wmt25", "wmt26"):
        assert main([*common, "--procedure", procedure]) == 0
        reports[procedure] = json.loads(capsys.readouterr().out)
    assert {p: r["procedure"] for p, r in reports.items()} == {p: p for p in reports}
    assert "domain_scores" in reports["wmt25"]["systems"][0]
    assert reports["wmt26"]["systems"][0]["local_cluster"] == 1
    assert reports["wmt25"]["systems"][0]["interval"] == [None, None]
