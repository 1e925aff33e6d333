"""The option table and the shim's handlers are tied: every row's action has
exactly one handler in the shim, and every handler serves at least one row."""

import pytest

from tfcompat_threads import options
from tfcompat_threads.shim import configure as runtime


def tie_problems(rows, handlers) -> list[str]:
    """What keeps a table of rows and a table of handlers from being tied."""
    problems = [
        f"row {row.field!r} names action {row.action!r}, which has no handler"
        for row in rows
        if not isinstance(row.action, options.Action) or row.action not in handlers
    ]
    used = {row.action for row in rows}
    problems += [f"handler for {action!r} serves no row" for action in handlers if action not in used]
    return problems


def test_every_row_has_a_handler_and_every_handler_a_row():
    assert tie_problems(options.OPTIONS, runtime.HANDLERS) == []


def test_every_action_has_a_handler():
    assert set(runtime.HANDLERS) == set(options.Action)


def test_rows_the_shim_does_not_apply_are_the_manual_and_graph_only_ones():
    not_applied = {row.field for row in options.OPTIONS if runtime.HANDLERS[row.action].apply is None}
    expected = {
        row.field
        for row in options.OPTIONS
        if row.action in (options.Action.MANUAL, options.Action.GRAPH_ONLY)
    }
    assert not_applied == expected
    assert all(not row.mappable for row in options.OPTIONS if row.field in not_applied)


@pytest.mark.parametrize(
    ("rows", "handlers", "problem"),
    [
        pytest.param(
            [*options.OPTIONS, options.OPTIONS[0]._replace(field="new_field", action="intra_op_thread")],
            runtime.HANDLERS,
            "row 'new_field' names action 'intra_op_thread', which has no handler",
            id="row-with-a-string-action",
        ),
        pytest.param(
            [row for row in options.OPTIONS if row.action is not options.Action.DEVICE_COUNT_CPU],
            runtime.HANDLERS,
            "handler for <Action.DEVICE_COUNT_CPU: 'device_count_cpu'> serves no row",
            id="orphaned-handler",
        ),
        pytest.param(
            options.OPTIONS,
            {a: h for a, h in runtime.HANDLERS.items() if a is not options.Action.SOFT_PLACEMENT},
            "row 'allow_soft_placement' names action <Action.SOFT_PLACEMENT: 'soft_placement'>, "
            "which has no handler",
            id="row-without-handler",
        ),
    ],
)
def test_the_tie_check_sees_a_broken_tie(rows, handlers, problem):
    assert problem in tie_problems(rows, handlers)
