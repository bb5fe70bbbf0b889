"""Error analysis of two systems against a reference, in the style of compare-mt.

Neubig et al. (2019), "compare-mt: A Tool for Holistic Comparison of Language Generation
Systems". ``compare_systems`` gives, for two systems and one reference:

* corpus BLEU per reference-length bucket, and sentence counts per output-minus-reference
  length bucket (``metrics.analysis.sentences``);
* word F-measure per reference-frequency bucket (``metrics.analysis.words``);
* the n-grams one system matches in the reference and the other does not
  (``metrics.analysis.ngrams``);
* the sentences whose sentence-level BLEU differs most (``metrics.analysis.sentences``).

Bucket boundaries, the matching of words and n-grams and the F-measure are compare-mt's own;
BLEU is the project's sacrebleu BLEU (see ``metrics.analysis.sentences`` for where that
differs from compare-mt's, and by how much on its TED example).
"""

from metrics.analysis.compare import Comparison, compare_systems, tokenise

__all__ = ["Comparison", "compare_systems", "tokenise"]
