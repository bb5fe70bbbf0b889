"""The human results API's answer, field by field (``annotation.api.human`` serves it): the
schema clients read, and what a result's numbers become in JSON."""

from __future__ import annotations

import math

from rest_framework import serializers

from annotation.api.results_figures import FiguresSerializer
from annotation.api.schema import BUDGET_UNITS, OBSERVATION_UNITS
from annotation.selectors.human.correlation import CORPUS_SCORE, SENTENCE_MEAN
from annotation.selectors.human.reliability import reliability_record


class Number(serializers.FloatField):
    """A float that is null when undefined (NaN) or infinite, which JSON cannot carry."""

    def __init__(self, **kwargs):
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value):
        number = float(value)
        return number if math.isfinite(number) else None


class IntervalField(serializers.ListField):
    def __init__(self, **kwargs):
        super().__init__(child=Number(), **kwargs)


class LikertSystemSerializer(serializers.Serializer):
    system = serializers.CharField(source="name")
    z = Number(source="score.z")
    z_interval = IntervalField(source="score.z_interval")
    raw = Number(source="score.raw")
    raw_interval = IntervalField(source="score.raw_interval")
    cluster = serializers.IntegerField(source="score.cluster")
    rank_range = serializers.ListField(child=serializers.IntegerField(), source="score.rank_range")
    systems_beaten = serializers.IntegerField(
        source="score.wins", help_text="systems this one beats at p < 0.05 (Wilcoxon rank-sum)"
    )
    segments = serializers.IntegerField(source="score.segments")
    judgments = serializers.IntegerField(source="score.judgments")


class LikertRankingSerializer(serializers.Serializer):
    measure = serializers.CharField()
    systems = LikertSystemSerializer(many=True)


class SystemIntervalSerializer(serializers.Serializer):
    system = serializers.CharField()
    judgments = serializers.IntegerField(help_text="observations: judgments, or pages")
    mean = Number(help_text="mean of the statistic (mean z, ESA score, MQM score)")
    interval = IntervalField(help_text="always-valid interval (valid at every look)")


class PairStatusSerializer(serializers.Serializer):
    upper = serializers.CharField()
    lower = serializers.CharField()
    difference = Number()
    interval = IntervalField(help_text="always-valid interval for the difference")
    status = serializers.ChoiceField(choices=["resolved", "equivalent", "open"])
    still_needed = Number(
        help_text="an open pair: observations of its two systems estimated until it settles "
        "if the current means and spreads hold; 0: not open; null: cannot settle or unknown"
    )


class RollingSystemSerializer(serializers.Serializer):
    system = serializers.CharField()
    judgments = serializers.ListField(child=serializers.IntegerField())
    mean = IntervalField(help_text="at each look; null before the system's first judgment")
    low = IntervalField()
    high = IntervalField()


class RollingSerializer(serializers.Serializer):
    """The rolling-interval figure's numbers (``metrics.adaptive.rolling``)."""

    looks = serializers.ListField(
        child=serializers.IntegerField(), help_text="observations so far, all systems"
    )
    systems = RollingSystemSerializer(many=True)

    def to_representation(self, instance):
        systems = [
            {
                "system": name,
                "judgments": instance.counts[:, i].tolist(),
                "mean": instance.means[:, i].tolist(),
                "low": instance.low[:, i].tolist(),
                "high": instance.high[:, i].tolist(),
            }
            for i, name in enumerate(instance.systems)
        ]
        return super().to_representation({"looks": instance.looks.tolist(), "systems": systems})


class RankingStatusSerializer(serializers.Serializer):
    measure = serializers.CharField()
    statistic = serializers.CharField(help_text="mean z (DA), ESA score or MQM score")
    lower_is_better = serializers.BooleanField(help_text="MQM: true")
    unit = serializers.ChoiceField(
        choices=OBSERVATION_UNITS,
        help_text="one observation: a judgment, an output of a contrastive screen, or a page",
    )
    delta = Number(help_text="the task's equivalence_margin, in the statistic's units")
    alpha = Number()
    tuning = Number(
        help_text="observations per system the always-valid intervals are tuned for, fixed at "
        "launch: half each system's share of the judgment budget, else the default"
    )
    paired = serializers.BooleanField(
        help_text="the pairs' intervals are paired on the screens showing both systems"
    )
    settled = serializers.BooleanField(help_text="no adjacent pair is open")
    still_needed = Number(
        help_text="estimated observations (see unit) until settled; null: cannot settle"
    )
    budget_unit = serializers.ChoiceField(
        choices=BUDGET_UNITS,
        help_text="what the task's judgment_budget counts: a judgment as recorded, one per "
        "item submitted (a contrastive task's screen, however many outputs it shows)",
    )
    still_needed_judgments = Number(
        source="needed_judgments",
        help_text="still_needed in the budget's unit (budget_unit), quality control included "
        "as in the task so far; null: cannot settle",
    )
    systems = SystemIntervalSerializer(many=True)
    pairs = PairStatusSerializer(many=True)
    rolling = RollingSerializer(
        allow_null=True, help_text="each system's interval as the observations came in"
    )


class PairwiseSystemSerializer(serializers.Serializer):
    system = serializers.CharField(source="name")
    bradley_terry = Number(source="score.bradley_terry")
    expected_wins = Number(source="score.expected_wins")
    win_rate = Number(source="score.win_rate")
    wins = serializers.IntegerField(source="score.wins", help_text="comparisons won")
    losses = serializers.IntegerField(source="score.losses")
    ties = serializers.IntegerField(source="score.ties")
    rank_range = serializers.ListField(child=serializers.IntegerField(), source="score.rank_range")


class HterSystemSerializer(serializers.Serializer):
    system = serializers.CharField(source="name")
    corpus_hter = Number(source="score.corpus_hter", help_text="percent, as TER; lower is better")
    corpus_interval = IntervalField(source="score.corpus_interval")
    mean_hter = Number(source="score.mean_hter")
    mean_interval = IntervalField(source="score.mean_interval")
    segments = serializers.IntegerField(source="score.segments")


class AgreementSerializer(serializers.Serializer):
    measure = serializers.CharField()
    coefficient = serializers.CharField()
    value = Number(source="kappa.kappa")
    reading = serializers.CharField(source="kappa.label", help_text="Landis and Koch")
    items = serializers.IntegerField(source="kappa.items")
    interval = IntervalField(source="kappa.interval")
    annotators = serializers.IntegerField()
    resamples = serializers.IntegerField()


class AnnotatorSerializer(serializers.Serializer):
    annotator_id = serializers.IntegerField()
    username = serializers.CharField()
    excluded = serializers.BooleanField()
    judgments = serializers.IntegerField()
    median_seconds = Number()
    agreement_with_others = Number(source="quality.agreement_with_others")
    repeat_pairs = serializers.IntegerField(source="quality.repeat_pairs")
    repeat_mean_abs_difference = Number(source="quality.repeat_mean_abs_difference")
    bad_reference_pairs = serializers.IntegerField(source="quality.bad_reference_pairs")
    bad_reference_p = Number(source="quality.bad_reference_p")
    passed = serializers.BooleanField(source="quality.passed")
    verdict = serializers.CharField(source="quality.verdict")


class ReliabilitySerializer(serializers.Serializer):
    """One annotator's reliability row (``reliability_record``: the download's columns)."""

    annotator_id = serializers.IntegerField()
    annotator = serializers.CharField()
    excluded = serializers.BooleanField()
    attempt = serializers.IntegerField(
        help_text="1 + the times a manager let them start again; every figure is this attempt's"
    )
    passes = serializers.BooleanField(help_text="fails no reliability check")
    reasons = serializers.ListField(child=serializers.CharField(), help_text="checks failed")
    bad_reference_verdict = serializers.CharField(allow_null=True)
    bad_reference_p = Number()
    attention_passed = serializers.IntegerField(allow_null=True)
    attention_total = serializers.IntegerField()
    attention_rate = Number()
    tutorial_passed = serializers.IntegerField(allow_null=True)
    tutorial_total = serializers.IntegerField()
    tutorial_rate = Number()
    repeat_pairs = serializers.IntegerField()
    repeat_mean_abs_difference = Number()
    others_pairs = serializers.IntegerField()
    others_mean_abs_difference = Number(
        help_text="WMT26's MAE(dup): against other annotators' scores of the same item"
    )
    consensus_screens = serializers.IntegerField(allow_null=True)
    consensus_pairs = serializers.IntegerField(allow_null=True)
    consensus_likelihood = Number(help_text="WMT26's, on candidates scored side by side")
    consensus_kept = serializers.BooleanField(allow_null=True)
    items = serializers.IntegerField()
    seconds_per_item = Number(help_text="each item's time capped at 60 s")
    median_seconds_per_item = Number()
    too_fast = serializers.BooleanField()
    identical_share = Number()
    straight_lining = serializers.BooleanField(allow_null=True)

    def to_representation(self, instance):
        return super().to_representation(reliability_record(instance))


class DroppedSerializer(serializers.Serializer):
    annotator_id = serializers.IntegerField()
    annotator = serializers.CharField(source="username")
    reasons = serializers.ListField(child=serializers.CharField())


class DocumentScoreSerializer(serializers.Serializer):
    system = serializers.CharField()
    mean = Number(help_text="mean score of the system's document pages (higher is better)")
    pages = serializers.IntegerField()
    documents = serializers.IntegerField()


class PassingSerializer(serializers.Serializer):
    dropped = DroppedSerializer(many=True)
    likert = LikertRankingSerializer(many=True)
    pairwise = PairwiseSystemSerializer(many=True)
    hter = HterSystemSerializer(many=True)


class TaskResultsSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="task.id")
    task_type = serializers.CharField(source="task.task_type")
    judgments = serializers.IntegerField()
    likert = LikertRankingSerializer(many=True)
    ranking_status = RankingStatusSerializer(many=True)
    pairwise = PairwiseSystemSerializer(many=True)
    rank_resamples = serializers.IntegerField(
        help_text="bootstrap resamples behind the pairwise rank ranges (0: none computed)"
    )
    hter = HterSystemSerializer(many=True)
    agreement = AgreementSerializer(many=True)
    annotators = AnnotatorSerializer(many=True, source="quality")
    reliability = ReliabilitySerializer(many=True)
    passing = PassingSerializer(
        allow_null=True,
        help_text="with ?passing=true: the rankings without the annotators who fail a "
        "reliability check, and who they are; otherwise null",
    )
    document_scores = DocumentScoreSerializer(
        many=True, help_text="document tasks with a page score: each system's mean, best first"
    )


class CorrelationSerializer(serializers.Serializer):
    human = serializers.CharField()
    metric = serializers.CharField()
    metric_score = serializers.SerializerMethodField(
        help_text=f"{CORPUS_SCORE!r}: a system's metric score is its corpus-level score "
        "(the meta-evaluation's Pearson r uses the mean of sentence scores instead)"
    )
    systems = serializers.IntegerField()
    pearson = Number()
    spearman = Number()
    kendall = Number()

    def get_metric_score(self, instance) -> str:
        return CORPUS_SCORE


class MetaEvaluationSerializer(serializers.Serializer):
    human = serializers.CharField(
        help_text="the task whose segment scores are compared (Likert, DA, ESA, ESA^AI, MQM "
        "or contrastive)"
    )
    task_type = serializers.CharField()
    human_negated = serializers.BooleanField(
        help_text="true for MQM and contrastive MQM: their scores (error weight, lower is "
        "better) were negated, as mt-metrics-eval does, so higher is better on both sides"
    )
    kendall_threshold = Number(
        help_text="the Kendall-like tau counts pairs whose human scores differ by at least this"
    )
    metric = serializers.CharField()
    label = serializers.CharField()
    metric_score = serializers.CharField(
        help_text=f"{SENTENCE_MEAN!r}: a system's metric score is the mean of its sentence "
        "scores (the correlations' Pearson r uses the corpus-level score instead)"
    )
    system = serializers.DictField(
        help_text="systems, pearson, spearman, kendall_tau_b, pairs, pairwise_accuracy "
        "{value, low, high} (95% bootstrap over segments)"
    )
    segment = serializers.DictField(
        allow_null=True,
        help_text="items, pairs, Kendall-like tau, acc23 and tie-optimised acc23, each "
        "{value, low, high}; null when no segment is judged for two systems",
    )

    def to_representation(self, instance):
        found = instance.evaluation.as_dict()
        return {
            "human": instance.human,
            "task_type": instance.task_type,
            "human_negated": instance.human_negated,
            "kendall_threshold": instance.kendall_threshold,
            "metric": instance.metric,
            "label": instance.label,
            "metric_score": SENTENCE_MEAN,
            "system": found["system"],
            "segment": found["segment"],
        }


class SpanSystemSerializer(serializers.Serializer):
    """One of ``SpanTaskResults.ranking_rows``: the row the page and the download show."""

    position = serializers.IntegerField()
    system = serializers.CharField()
    score = Number(help_text="ESA: mean raw 0-100 score; MQM: mean MQM score (error weights)")
    score_low = Number(help_text="95% bootstrap interval (none under WMT25 and WMT26)")
    score_high = Number()
    cluster = serializers.IntegerField()
    rank_low = serializers.IntegerField()
    rank_high = serializers.IntegerField()
    systems_beaten = serializers.IntegerField(
        help_text="systems this one beats at p < 0.05 (one-sided Wilcoxon signed-rank);"
        " WMT25 and WMT26: the systems below its rank range"
    )
    segments = serializers.IntegerField()
    judgments = serializers.IntegerField(help_text="ESA: judgments; MQM: ratings")
    local_cluster = serializers.IntegerField(
        allow_null=True, help_text="WMT26: cluster between neighbours (cluster: global ones)"
    )
    domain_scores = serializers.DictField(
        child=Number(), help_text="WMT25: the system's mean score in each domain"
    )


class SpanPassingSerializer(serializers.Serializer):
    dropped = DroppedSerializer(many=True)
    systems = SpanSystemSerializer(many=True, source="rows")


class SpanRankingSerializer(serializers.Serializer):
    task_id = serializers.IntegerField(source="task.id")
    task_type = serializers.CharField(source="task.task_type")
    task_name = serializers.CharField(source="task.get_task_type_display")
    protocol = serializers.ChoiceField(choices=["esa", "mqm"], help_text="contrastive MQM: mqm")
    higher_is_better = serializers.BooleanField(help_text="ESA: true; MQM: false")
    procedure = serializers.CharField(
        allow_null=True, help_text="ESA: how it was ranked (wmt24, wmt25, wmt26); MQM: null"
    )
    domains = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        help_text="ESA: the domains averaged over (empty: a plain mean)",
    )
    judgments = serializers.IntegerField()
    systems = SpanSystemSerializer(many=True, source="ranking_rows")
    ranking_status = RankingStatusSerializer(
        many=True, help_text="the live stopping rule (empty with fewer than two systems)"
    )
    reliability = ReliabilitySerializer(many=True)
    passing = SpanPassingSerializer(
        allow_null=True,
        help_text="with ?passing=true: the ranking without the annotators who fail a "
        "reliability check, and who they are; otherwise null",
    )
    document_scores = DocumentScoreSerializer(
        many=True, help_text="document tasks with a page score: each system's mean, best first"
    )


class HumanResultsSerializer(FiguresSerializer):
    tasks = TaskResultsSerializer(many=True)
    span_rankings = SpanRankingSerializer(
        many=True,
        help_text="ESA, ESA^AI, MQM and contrastive MQM tasks, with their reliability tables "
        "(their full results: .../human/spans)",
    )
    excluded = serializers.ListField(child=serializers.IntegerField())
    correlations = CorrelationSerializer(many=True)
    meta_evaluation = MetaEvaluationSerializer(many=True)
