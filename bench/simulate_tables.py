"""The markdown tables of bench/simulate.md from `python -m metrics simulate ... --json`.

python -m metrics simulate ... --json | python -P bench/simulate_tables.py "TITLE"
"""

from __future__ import annotations

import json
import sys


def main(title: str) -> None:
    report = json.load(sys.stdin)["language_pairs"]
    for pair, section in report.items():
        full = section["full"]
        policies = section["policies"]
        print(
            f"#### {pair}, {title} (budget {full['judgments']},"
            f" {len(full['clusters'])} clusters in the full data)"
        )
        # Screens of several systems (--screen-size): the medians in outputs, and in screens.
        screens = all("screens_at_stop" in result for result in policies.values())
        print(
            "| policy | median | p10 | p90 | resolved | budget | wrong_order_rate |"
            " median / uniform |" + (" screens (median) |" if screens else "")
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if screens else ""))
        base = policies.get("uniform", {}).get("judgments_at_stop", {}).get("median")
        for policy, result in policies.items():
            spent = result["judgments_at_stop"]
            ratio = f"{spent['median'] / base:.2f}" if base else "-"
            print(
                f"| {policy} | {spent['median']:.0f} | {spent['p10']:.0f} | {spent['p90']:.0f}"
                f" | {result['stopped']['resolved']} | {result['stopped']['budget']}"
                f" | {result['wrong_order_rate']:.3f} | {ratio} |"
                + (f" {result['screens_at_stop']['median']:.0f} |" if screens else "")
            )
        print()


if __name__ == "__main__":
    main(" ".join(sys.argv[1:]))
