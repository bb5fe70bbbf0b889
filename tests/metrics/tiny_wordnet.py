"""A WordNet of a few synsets in WordNet's own file format (the files nltk's
WordNetCorpusReader reads), written into a test's directory: METEOR's synonym module is tested
without the real data, which is never downloaded."""

from __future__ import annotations

from pathlib import Path

HEADER = "  1 WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.\n"
LEXNAMES = ("adj.all 3", "adj.pert 3", "adv.all 4", "noun.Tops 1", "noun.act 1")
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


def write_wordnet(data_dir: Path, synsets: dict[str, list[tuple[str, ...]]]) -> Path:
    """``synsets[pos]`` lists each synset's lemmas; writes ``data_dir/corpora/wordnet`` (an
    nltk data directory layout) and returns ``data_dir``."""
    root = data_dir / "corpora" / "wordnet"
    root.mkdir(parents=True)
    (root / "lexnames").write_text(
        "".join(f"{i:02d}\t{name.replace(' ', chr(9))}\n" for i, name in enumerate(LEXNAMES))
    )
    for pos, suffix in POS_FILES.items():
        data, index = HEADER, {}
        for lemmas in synsets.get(pos, []):
            offset = len(data.encode())
            words = " ".join(f"{lemma} 0" for lemma in lemmas)
            data += f"{offset:08d} 03 {pos} {len(lemmas):02x} {words} 000 | a test synset\n"
            for lemma in lemmas:
                index.setdefault(lemma, []).append(offset)
        (root / f"data.{suffix}").write_text(data)
        (root / f"index.{suffix}").write_text(
            "".join(
                f"{lemma} {pos} {len(offs)} 0 {len(offs)} 0 "
                + " ".join(f"{o:08d}" for o in offs)
                + "\n"
                for lemma, offs in sorted(index.items())
            )
        )
        (root / f"{suffix}.exc").write_text("")
    (root / "index.sense").write_text("")
    return data_dir
