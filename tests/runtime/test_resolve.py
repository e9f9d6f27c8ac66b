import sys
import textwrap

import pytest

from noesis_nb.errors import UsingResolutionError
from noesis_nb.runtime.resolve import resolve_using


def _call(using, task="t"):
    adapter = resolve_using(using)
    return adapter.label, adapter.invoke(adapter.prepare_input(task), None)


def test_plain_function_factory_and_objects_in_noesis_order():
    def echo(task):
        return f"echo:{task}"

    def make():
        return echo

    class Both:
        def invoke(self, payload):
            return "invoke"

        def run(self, payload):
            return "run"

        def __call__(self, payload):
            return "call"

    class RunOnly:
        def run(self, payload):
            return "run"

    class CallOnly:
        def __call__(self, payload):
            return "call"

    assert _call(echo) == ("echo", "echo:t")
    assert _call(make) == ("make", "echo:t")  # zero-argument factory, labelled by its name
    assert _call(Both()) == ("Both", "invoke")
    assert _call(RunOnly()) == ("RunOnly", "run")
    assert _call(CallOnly()) == ("CallOnly", "call")


def test_input_mapper_is_applied_before_invoke():
    class Graph:
        __noesis_input_mapper__ = staticmethod(lambda task: {"task": task.upper()})

        def invoke(self, payload):
            return payload

    assert _call(Graph(), "hi")[1] == {"task": "HI"}


def test_strings_module_attr_path_and_short_names(tmp_path, monkeypatch):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "agents.py").write_text(
        textwrap.dedent("""
        def make():
            return lambda task: "from factory:" + task
        def direct(task):
            return "direct:" + task
    """)
    )
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "__init__.py").write_text("")
    (tmp_path / "flows" / "triage.py").write_text("def build():\n    return lambda task: 'flow:' + task\n")
    (tmp_path / "noesis_user").mkdir()
    (tmp_path / "noesis_user" / "__init__.py").write_text("")
    (tmp_path / "noesis_user" / "helper.py").write_text("graph = lambda task: 'user:' + task\n")
    file_agent = tmp_path / "file_agent.py"
    file_agent.write_text("def create():\n    return lambda task: 'file:' + task\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.split(".")[0] in {"mypkg", "flows", "noesis_user"}]:
        monkeypatch.delitem(sys.modules, name)
    assert _call("mypkg.agents:make") == ("mypkg.agents:make", "from factory:t")
    assert _call("mypkg.agents:direct")[1] == "direct:t"
    assert _call(str(file_agent))[1] == "file:t"
    assert _call("triage") == ("triage", "flow:t")
    assert _call("helper")[1] == "user:t"


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("no_such_thing_anywhere", "short name"),
        ("no_such_module_xyz:make", "cannot import module"),
        ("json:no_such_attr", "has no attribute"),
        (None, "using= is required"),
    ],
)
def test_unresolvable_strings_name_the_value_and_the_fix(bad, fragment):
    with pytest.raises(UsingResolutionError, match=fragment):
        resolve_using(bad)


def test_a_class_where_an_instance_was_meant_and_execute_only_objects():
    class Agent:
        def invoke(self, payload):
            return payload

    with pytest.raises(UsingResolutionError, match=r"is a class; pass an instance \(Agent\(\.\.\.\)\)"):
        resolve_using(Agent)

    class ExecuteOnly:
        def execute(self, *, task):
            return task

    with pytest.raises(UsingResolutionError, match="execute\\(\\)-only"):
        resolve_using(ExecuteOnly())


def test_context_is_passed_positionally_or_as_keyword():
    seen = []

    def positional(task, ctx):
        seen.append(ctx)

    def keyword(task, *, ctx):
        seen.append(ctx)

    for fn in (positional, keyword):
        adapter = resolve_using(fn)
        adapter.invoke("t", "CTX")
    assert seen == ["CTX", "CTX"]
    assert resolve_using(lambda task: task).wants_context is None


def test_adapters_that_could_never_be_called_are_named_before_anything_runs():
    async def agent(task, ctx):
        return task

    def three(task, ctx, model):
        return task

    def context_keyword(task, *, context):
        return task

    class NoTask:
        def run(self):
            return "x"

    cases = [
        (5, r"using=5 \(type int\) is no adapter; pass a function"),
        ([agent], r"got a list: an episode runs one adapter; .*noesis_nb\.batch"),
        ({"a": agent}, r"got a dict: an episode runs one adapter"),
        (lambda: "x", r"takes no arguments, so it was called as a factory, and it returned 'x', which is no adapter"),
        (three, r"requires 3 arguments \(task, ctx, model\); .*functools\.partial"),
        (context_keyword, r"requires the keyword argument\(s\) context, which are never passed"),
        (NoTask(), r"takes no task argument"),
    ]
    for using, fragment in cases:
        with pytest.raises(UsingResolutionError, match=fragment):
            resolve_using(using)
    coroutine = agent("t", None)  # called, not passed
    with pytest.raises(UsingResolutionError, match=r"a coroutine \(.*agent\(\.\.\.\) called, not awaited\); pass the function"):
        resolve_using(coroutine)
    # what may be called stays accepted: defaults, a keyword-only ctx, a partial
    import functools

    def with_default(task, ctx, model="m"):
        return model

    def keyword_ctx(task, *, ctx, model="m"):
        return model

    for ok in (with_default, keyword_ctx, functools.partial(three, model="m")):
        resolve_using(ok)


@pytest.mark.parametrize(
    ("using", "named"),
    [
        ("a" * 5000, "names no agent"),  # no file can have the name: the OS said "File name too long"
        ("agents/" + "a" * 5000 + ".py", "names no agent"),
        ("~no_such_user_here/agent.py", "names no agent"),  # no home to expand it to
        ("~no_such_user_here:make", "where a Python name belongs"),
        ("pkg\x00mod:make", "holds a NUL"),
        ("pkg.mod:make\n", "holds a NUL or a line break"),
    ],
    ids=["long name", "long path", "unknown home", "unknown home, colon", "NUL", "line break"],
)
def test_a_string_no_file_or_module_can_have_is_one_clear_error(using, named):
    """A string the OS refuses as a path (too long, a home that does not exist, a NUL) raised the OS's own error
    (OSError, RuntimeError) from the path check instead of saying what using= takes."""
    with pytest.raises(UsingResolutionError, match=named) as raised:
        resolve_using(using)
    assert "'pkg.mod:" in str(raised.value)  # and says the form it takes
