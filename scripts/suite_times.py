"""Where the test suite's seconds go, from pytest's JUnit XML (`--junitxml`): the time
of every test (setup, call and teardown: a module's fixtures count where they are
built) summed by folder and by module, largest first.

    python scripts/suite_times.py junit.xml --modules=15

A record for each CI run (`.ci/run` prints it), so the cost a new family or task
adds is seen when it lands. `--schedule tests/suite_schedule.json` writes the
seconds of every `xdist_group` (a module, or a group a test names: the
every-family suite's one per family), longest first: the order in which the
suite hands its groups to its workers (`tests/suite_schedule.py`).
"""

import argparse
import collections
import json
import xml.etree.ElementTree as ElementTree


def test_cases(junit_xml):
    """[(module path, xdist group, seconds)] of every test case in `junit_xml`. Under
    `--dist loadgroup` a test's name ends in `@<group>`; without it, its module is its group."""
    cases = []
    for case in ElementTree.parse(junit_xml).getroot().iter("testcase"):
        module = case.get("classname", "").split("::")[0]
        parts = module.split(".")
        # classname is the dotted module, plus the class for a test method: keep up to `test_*`.
        end = next((i + 1 for i, part in enumerate(parts) if part.startswith("test_")), len(parts))
        name = case.get("name", "")
        group = name.rsplit("@", 1)[1] if "@" in name else ".".join(parts[:end])
        cases.append(("/".join(parts[:end]) + ".py", group, float(case.get("time", 0.0))))
    return cases


def totals(cases, depth=None):
    """{module path (or its first `depth` folders): (seconds, tests)}, largest first."""
    summed = collections.defaultdict(lambda: [0.0, 0])
    for path, seconds in cases:
        key = "/".join(path.split("/")[:depth]) if depth else path
        summed[key][0] += seconds
        summed[key][1] += 1
    return dict(sorted(((k, tuple(v)) for k, v in summed.items()), key=lambda kv: -kv[1][0]))


def table(title, rows, limit=None):
    lines = [f"{title:<60} {'seconds':>9} {'tests':>6}"]
    for name, (seconds, count) in list(rows.items())[:limit]:
        lines.append(f"{name:<60} {seconds:9.1f} {count:6d}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("junit_xml")
    parser.add_argument("--modules", type=int, default=15,
                        help="how many of the slowest modules to list (0: every one)")
    parser.add_argument("--schedule", help="also write every group's seconds to this JSON file")
    args = parser.parse_args()
    found = test_cases(args.junit_xml)
    cases = [(module, seconds) for module, _, seconds in found]
    groups = totals([(group, seconds) for _, group, seconds in found])
    print(f"test time (setup + call + teardown, summed over workers): {sum(s for _, s in cases):.1f} s "
          f"in {len(cases)} tests")
    print(table("by folder", totals(cases, depth=2)))
    modules = totals(cases)
    print(table(f"the {args.modules} slowest modules" if args.modules else "every module", modules,
                args.modules or None))
    named = {group: row for group, row in groups.items() if not group.startswith("tests.")}
    if named:
        print(table("groups a test names (every other group is a module)", named))
    if args.schedule:
        with open(args.schedule, "w", encoding="utf-8") as f:
            json.dump({group: round(seconds, 1) for group, (seconds, _) in groups.items()}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
