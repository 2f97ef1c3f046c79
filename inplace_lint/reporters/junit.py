"""JUnit XML as ruff writes it: a test suite per file, a failing test case per diagnostic."""

from __future__ import annotations

from itertools import groupby
from xml.etree import ElementTree as ET

from inplace_lint.reporters.common import ReportContext, diagnostics, locate
from inplace_lint.results import FileResult


def render(results: list[FileResult], context: ReportContext) -> str:
    pairs = list(diagnostics(results))
    root = ET.Element(
        "testsuites",
        name="inplace-lint",
        tests=str(len(pairs)),
        failures=str(len(pairs)),
        errors="0",
    )
    if not pairs:
        suite = ET.SubElement(
            root, "testsuite", name="inplace-lint", tests="1", failures="0", errors="0"
        )
        ET.SubElement(suite, "testcase", name="No errors found")
    for result, items in groupby(pairs, key=lambda pair: pair[0]):
        items = list(items)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=result.path,
            tests=str(len(items)),
            failures=str(len(items)),
            errors="0",
            package="org.inplace-lint",
        )
        classname = result.path.rsplit(".", 1)[0]
        for _, diag in items:
            where = locate(result, diag.span.start)
            attrs = {"name": f"org.inplace-lint.{diag.code}", "classname": classname}
            attrs.update(line=str(where.row), column=str(where.column))
            case = ET.SubElement(suite, "testcase", attrs)
            props = ET.SubElement(case, "properties")
            ET.SubElement(props, "property", name="severity", value=diag.severity.label)
            if where.cell is not None:
                ET.SubElement(props, "property", name="cell", value=str(where.cell))
            cell = f"cell {where.cell}, " if where.cell is not None else ""
            failure = ET.SubElement(case, "failure", message=diag.message)
            failure.text = f"{cell}line {where.row}, col {where.column}, {diag.message}"
    ET.indent(root, space="    ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
