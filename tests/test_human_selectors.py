"""The human-results selectors: the right arrays, the right exclusions, the right numbers.

The statistics themselves are tested against scipy/sklearn in tests/metrics; here every figure
the dashboard publishes is recomputed from the database rows with an independent reference.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from annotation.models import Judgment, RunScore, System, SystemRun
from annotation.selectors.human import human_results
from annotation.selectors.human.comparisons import (
    Judged,
    comparison_data,
    pairwise_ranking,
    ranks_of,
)
from annotation.selectors.human.correlation import automatic_scores
from annotation.selectors.human.loading import (
    HUMAN,
    Usernames,
    copy_columns,
    float_column,
    int_column,
    item_type_column,
    segment_codes,
    task_judgments,
)
from annotation.services.exclusions import annotator_exclude
from metrics.agreement import Ranking
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

QUALITY = {"Online-B": 5, "UEdin": 3, "happypoet": 2, HUMAN: 5}


def likert(user, slot) -> dict[str, int]:
    """Planted quality, a per-annotator offset and some noise; BAD items score low."""
    system = slot.item.system.name if slot.item.system else HUMAN
    base = 1 if slot.item.item_type == "BAD" else QUALITY[system]
    noise = (slot.item.id * 7 + user.id * 3 + slot.is_repeat) % 3 - 1
    score = int(min(5, max(1, base + noise)))
    return {"score": score, "fluency": int(min(5, max(1, 6 - score + noise)))}


@pytest.fixture
def adequacy(launched, loaded_campaign, make_annotator):
    task = launched(
        "adequacy_fluency",
        judgments_per_item=3,
        bad_reference_rate=0.3,  # quality control as high as a task may have (below 1)
        reference_rate=0.3,
        repeat_rate=0.3,
        seed=11,
        batch_size=10,  # small batches, so that all four annotators get some
    )
    users = [make_annotator(loaded_campaign, f"ann{i}") for i in range(4)]
    judge_all(task, users, likert)
    return task, users


def rows_of(task, **filters):
    return list(
        Judgment.objects.filter(task=task, excluded=False, **filters)
        .order_by("id")
        .values_list(
            "annotator_id",
            "item_id",
            "item__item_type",
            "is_repeat",
            "item__system__name",
            "item__segment__index",
            "score",
            "fluency",
            "duration_ms",
        )
    )


def test_copy_columns_equals_values_list(adequacy):
    task, _ = adequacy
    Judgment.objects.filter(id=Judgment.objects.filter(task=task).first().id).update(hter=0.25)
    arrays = copy_columns(
        task_judgments(task),
        [
            int_column("annotator", "annotator_id"),
            int_column("item", "item_id", big=True),
            item_type_column(),
            int_column("system", "item__system_id"),
            float_column("score", "score"),
            float_column("hter", "hter"),
        ],
    )
    expected = list(
        task_judgments(task).values_list(
            "annotator_id", "item_id", "item__item_type", "is_repeat", "item__system_id", "score"
        )
    )
    assert arrays["annotator"].tolist() == [r[0] for r in expected]
    assert arrays["item"].tolist() == [r[1] for r in expected]
    kinds = ["REPEAT" if r[3] else r[2] for r in expected]
    assert [["TGT", "BAD", "REF", "CHK", "REPEAT"][k] for k in arrays["kind"]] == kinds
    assert arrays["system"].tolist() == [-1 if r[4] is None else r[4] for r in expected]
    assert arrays["score"].tolist() == [float(r[5]) for r in expected]
    assert np.isnan(arrays["hter"][1:]).all() and arrays["hter"][0] == 0.25
    empty = copy_columns(Judgment.objects.none(), [int_column("a", "annotator_id")])
    assert empty["a"].size == 0


def test_segment_codes_sort_like_numbers():
    codes = segment_codes(np.array([2, 10, 1, 2, 100]))
    assert codes.tolist() == [1, 2, 0, 1, 3]  # 1 < 2 < 10 < 100, as the command line codes them


def independent_ranking(rows, column: int) -> dict[str, tuple[float, float, int, int]]:
    """System → (raw, z, segments, judgments): z per annotator with scipy, means of segment
    means, over TGT and REF first judgments."""
    ranked = [r for r in rows if r[2] in ("TGT", "REF") and not r[3]]
    by_annotator = defaultdict(list)
    for i, r in enumerate(ranked):
        by_annotator[r[0]].append(i)
    z = np.zeros(len(ranked))
    for indices in by_annotator.values():
        scores = np.array([ranked[i][column] for i in indices], dtype=float)
        if scores.std() > 0:
            z[indices] = stats.zscore(scores, ddof=1)
    segments = defaultdict(list)
    for i, r in enumerate(ranked):
        segments[(r[4] or HUMAN, r[5])].append((ranked[i][column], z[i]))
    result = {}
    for system in {key[0] for key in segments}:
        means = [np.mean(v, axis=0) for (s, _), v in segments.items() if s == system]
        count = sum(len(v) for (s, _), v in segments.items() if s == system)
        result[system] = (*np.mean(means, axis=0), len(means), count)
    return result


def test_likert_rankings_from_the_right_rows(adequacy, manager):
    task, users = adequacy
    # A judgment excluded on its own counts nowhere.
    dropped = Judgment.objects.filter(task=task, item__item_type="TGT", is_repeat=False).first()
    Judgment.objects.filter(id=dropped.id).update(excluded=True)
    result = human_results(task.campaign).tasks[0]
    rows = rows_of(task)
    assert result.judgments == len(rows)
    assert [r.measure for r in result.likert] == ["adequacy", "fluency"]
    for ranking, column in zip(result.likert, (6, 7), strict=True):
        expected = independent_ranking(rows, column)
        assert {s.name for s in ranking.systems} == set(expected) and HUMAN in expected
        for s in ranking.systems:
            raw, z, segments, judgments = expected[s.name]
            assert s.score.raw == pytest.approx(raw)
            assert s.score.z == pytest.approx(z)
            assert (s.score.segments, s.score.judgments) == (segments, judgments)
            assert s.score.z_interval[0] <= s.score.z <= s.score.z_interval[1]
    adequacy_order = [s.name for s in result.likert[0].systems]
    assert adequacy_order.index("Online-B") < adequacy_order.index("happypoet")

    # An excluded annotator leaves the rankings but stays in quality control.
    annotator_exclude(campaign=task.campaign, annotator_id=users[0].id, excluded=True, by=manager)
    result = human_results(task.campaign).tasks[0]
    expected = independent_ranking([r for r in rows if r[0] != users[0].id], 6)
    for s in result.likert[0].systems:
        assert s.score.z == pytest.approx(expected[s.name][1])
    assert {row.annotator_id for row in result.quality} == {u.id for u in users}


def test_agreement_wiring_against_sklearn(adequacy):
    task, _ = adequacy
    rows = rows_of(task)
    first = [r for r in rows if r[2] in ("TGT", "REF") and not r[3]]
    labels = sorted({r[6] for r in first})
    by_annotator = defaultdict(dict)
    for r in first:
        by_annotator[r[0]][r[1]] = r[6]

    def mean_pairwise(weights):
        total = weighted = 0.0
        for a, b in combinations(sorted(by_annotator), 2):
            shared = sorted(set(by_annotator[a]) & set(by_annotator[b]))
            x = [by_annotator[a][i] for i in shared]
            y = [by_annotator[b][i] for i in shared]
            if len(set(x) | set(y)) > 1:
                kappa = cohen_kappa_score(x, y, weights=weights, labels=labels)
                weighted += kappa * len(shared)
                total += len(shared)
        return weighted / total

    for weights in (None, "quadratic"):
        result = human_results(task.campaign, weights=weights).tasks[0]
        found = {
            (a.measure, a.coefficient.split(",")[0] + a.coefficient.split(",")[1]): a
            for a in result.agreement
            if "Cohen" in a.coefficient
        }
        inter = found[("adequacy", "Cohen's kappa inter-annotator")]
        assert inter.kappa.kappa == pytest.approx(mean_pairwise(weights))
        assert inter.kappa.label in {
            "poor",
            "slight",
            "fair",
            "moderate",
            "substantial",
            "almost perfect",
        }
        low, high = inter.kappa.interval
        assert low <= high and inter.resamples == 1000 and inter.annotators == 4

    # Intra-annotator: each first judgment against the same annotator's repeat, pooled.
    pairs = defaultdict(list)
    for r in rows:
        if r[2] in ("TGT", "REF"):
            pairs[(r[0], r[1])].append(r[6])
    repeated = [v for v in pairs.values() if len(v) == 2]
    result = human_results(task.campaign).tasks[0]
    intra = next(
        a for a in result.agreement if a.measure == "adequacy" and "intra" in a.coefficient
    )
    assert intra.kappa.items == len(repeated)
    assert intra.kappa.kappa == pytest.approx(
        cohen_kappa_score([v[0] for v in repeated], [v[1] for v in repeated])
    )


def test_quality_control_times_and_bad_references(adequacy):
    task, _ = adequacy
    rows = rows_of(task)
    result = human_results(task.campaign).tasks[0]
    assert result.bad_references
    for row in result.quality:
        mine = [r for r in rows if r[0] == row.annotator_id]
        assert row.judgments == len(mine)
        assert row.median_seconds == pytest.approx(np.median([r[8] / 1000 for r in mine]))
        originals = {(r[4], r[5]): r[6] for r in mine if r[2] == "TGT" and not r[3]}
        bad = [
            (originals[(r[4], r[5])], r[6])
            for r in mine
            if r[2] == "BAD"
            if (r[4], r[5]) in originals
        ]
        assert row.quality.bad_reference_pairs == len(bad)
        # Agreement with others: equal scores among pairs with the others' first TGT scores.
        others = [
            (r[6], o[6])
            for r in mine
            if r[2] == "TGT" and not r[3]
            for o in rows
            if o[0] != row.annotator_id and o[2] == "TGT" and not o[3] and o[1] == r[1]
        ]
        assert row.quality.agreement_pairs == len(others)
        if others:
            share = sum(a == b for a, b in others) / len(others)
            assert row.quality.agreement_with_others == pytest.approx(share)
        if len(bad) >= 2 and len({a - b for a, b in bad}) > 1:
            expected = stats.ttest_rel(*zip(*bad, strict=True), alternative="greater").pvalue
            assert row.quality.bad_reference_p == pytest.approx(expected)


def test_hter_per_system(launched, loaded_campaign, make_annotator):
    task = launched("postedit", judgments_per_item=2)
    users = [make_annotator(loaded_campaign, name) for name in ("pe1", "pe2")]

    def post_edit(user, slot):
        words = slot.item.candidates[0]["text"].split()
        cut = (slot.item.id + user.id) % 3
        return {"post_edit": " ".join(words[cut:] or ["leer"])}

    judge_all(task, users, post_edit)
    result = human_results(loaded_campaign).tasks[0]
    rows = Judgment.objects.filter(task=task).values_list(
        "item__system__name", "item__segment__index", "edits", "post_edit_length", "hter"
    )
    by_system = defaultdict(list)
    by_segment = defaultdict(list)  # the two post-edits of an output make one segment
    for system, segment, edits, length, hter in rows:
        by_system[system].append((edits, length, hter))
        by_segment[(system, segment)].append(hter)
    assert {s.name for s in result.hter} == set(by_system)
    for s in result.hter:
        values = np.array(by_system[s.name])
        # In percent, as the stored segment HTER and sacrebleu's TER (tests/test_units.py).
        assert s.score.corpus_hter == pytest.approx(100 * values[:, 0].sum() / values[:, 1].sum())
        means = [np.mean(v) for (name, _), v in by_segment.items() if name == s.name]
        assert s.score.mean_hter == pytest.approx(np.mean(means))
        assert s.score.segments == len(means) == len(values) / 2
        assert s.score.corpus_interval[0] <= s.score.corpus_hter <= s.score.corpus_interval[1]
    corpus = [s.score.corpus_hter for s in result.hter]
    assert corpus == sorted(corpus)  # best (lowest) first


def test_side_by_side_scores_rank_like_preferences():
    row = {"ranks": None, "preference": "B", "candidate_scores": [70, 40]}
    assert ranks_of("pairwise", row, 2) == [1, 2]  # the scores win over the stored preference
    row = {"ranks": None, "preference": "T", "candidate_scores": None}
    assert ranks_of("pairwise", row, 2) == [1, 1]
    assert ranks_of("ranking", {"ranks": [3, 1, 2]}, 3) == [3, 1, 2]
    assert ranks_of("pairwise", {"candidate_scores": None, "preference": "A"}, 1) is None


def test_pairwise_counts_and_collapsed_outputs(launched, loaded_campaign, make_annotator):
    task = launched("ranking", ranking_size=3, judgments_per_item=3)
    users = [make_annotator(loaded_campaign, name) for name in ("r1", "r2", "r3")]

    def rank(user, slot):
        quality = [max(QUALITY[s] for s in c["systems"]) for c in slot.item.candidates]
        return {"ranks": [1 + sum(q > own for q in quality) for own in quality]}

    judge_all(task, users, rank)
    judged = comparison_data(task, Usernames())
    collapsed = [j for j in judged if any(len(o) > 1 for o in j.ranking.outputs)]
    assert collapsed, "the demo's segment 5 has identical Online-B and UEdin outputs"
    result = human_results(loaded_campaign).tasks[0]
    # Counted by hand: every pair of systems from different candidates.
    wins, losses, ties = defaultdict(int), defaultdict(int), defaultdict(int)
    for judgment in Judgment.objects.filter(task=task, is_repeat=False).select_related("item"):
        candidates = judgment.item.candidates
        for (i, a), (j, b) in combinations(enumerate(candidates), 2):
            for x in a["systems"]:
                for y in b["systems"]:
                    if judgment.ranks[i] == judgment.ranks[j]:
                        ties[x] += 1
                        ties[y] += 1
                        continue
                    better, worse = (x, y) if judgment.ranks[i] < judgment.ranks[j] else (y, x)
                    wins[better] += 1
                    losses[worse] += 1
    for s in result.pairwise:
        assert (s.score.wins, s.score.losses, s.score.ties) == (
            wins[s.name],
            losses[s.name],
            ties[s.name],
        )
        total = wins[s.name] + losses[s.name] + ties[s.name]
        assert s.score.win_rate == pytest.approx(wins[s.name] / total)
    assert result.pairwise[0].name == "Online-B"
    wmt = [a.coefficient for a in result.agreement]
    assert "WMT kappa, inter-annotator" in wmt and "Fleiss' kappa" in wmt


@pytest.mark.usefixtures("adequacy")
def test_correlations_use_first_runs(loaded_campaign):
    for number, offset in ((1, 0.0), (2, 50.0)):
        for i, system in enumerate(System.objects.filter(campaign=loaded_campaign)):
            run = SystemRun.objects.get_or_create(
                system=system,
                number=number,
                defaults={"campaign": loaded_campaign, "content_hash": f"{system.id}-{number}"},
            )[0]
            for metric, score in (("bleu", 10 + 7 * i), ("chrf", 40 - 3 * i * i), ("ter", 60 - i)):
                RunScore.objects.create(
                    run=run,
                    metric=metric,
                    references="A",
                    score=score + offset,
                    ci_low=0,
                    ci_high=100,
                    signature="test",
                    samples=1000,
                    seed=1,
                )
    assert automatic_scores(loaded_campaign)["bleu"] == {
        "Online-B": 10,
        "UEdin": 17,
        "happypoet": 24,
    }
    results = human_results(loaded_campaign)
    z = results.human["Adequacy and fluency (adequacy): z"]
    assert HUMAN not in z
    for correlation in results.correlations:
        if correlation.human != "Adequacy and fluency (adequacy): z":
            continue
        metric = results.automatic[correlation.metric]
        x = [z[s] for s in sorted(z)]
        y = [metric[s] for s in sorted(z)]
        assert correlation.pearson == pytest.approx(stats.pearsonr(x, y).statistic)
        assert correlation.spearman == pytest.approx(stats.spearmanr(x, y).statistic)
        assert correlation.kendall == pytest.approx(stats.kendalltau(x, y).statistic)


def test_progress_counts(adequacy):
    task, users = adequacy
    progress = human_results(task.campaign).progress
    assert progress.judgments == Judgment.objects.count()
    assert progress.annotators == len(users)
    assert [s.total for s in progress.by_task_type] == [Judgment.objects.count()]
    assert sum(s.total for s in progress.by_annotator) == Judgment.objects.count()


def test_rank_ranges_only_with_enough_decided_comparisons():
    def judged(n: int) -> list[Judged]:
        # A beats B beats C most of the time, with every system winning and losing now and then.
        orders = [(1, 2, 3)] * 3 + [(2, 1, 3), (3, 2, 1), (1, 3, 2)]
        return [
            Judged(
                Ranking(str(i), f"judge{i % 4}", [("A",), ("B",), ("C",)], orders[i % 6]),
                annotator_id=i % 4,
                is_repeat=False,
                seconds=1.0,
            )
            for i in range(n)
        ]

    ranking, resamples = pairwise_ranking(judged(60), excluded=set())
    assert resamples == 1000 and [s.name for s in ranking] == ["A", "B", "C"]
    assert all(1 <= s.score.rank_range[0] <= s.score.rank_range[1] <= 3 for s in ranking)
    ranking, resamples = pairwise_ranking(judged(6), excluded=set())
    assert resamples == 0 and len(ranking) == 3
    # Excluded annotators count nowhere.
    ranking, _ = pairwise_ranking(judged(60), excluded={0, 1, 2, 3})
    assert ranking == []
