"""The Python examples of Noēsis' "Integrate adapters" guide that need no third-party framework.

Each example body is the guide's, with ``import noesis as ns`` changed to ``import noesis_nb.ns as ns``.
"""

import textwrap

import pytest

GUIDE_EXAMPLES = {
    "basic": """
        import noesis_nb.ns as ns

        # Your adapter is just a function
        def my_adapter(task: str) -> str:
            return f"Processed: {task}"

        # Noēsis wraps it with cognition
        episode_id = ns.solve("Do something", using=my_adapter)
    """,
    "plain_functions": """
        import noesis_nb.ns as ns


        def echo_adapter(task: str) -> dict:
            \"\"\"Simple adapter that echoes the task.\"\"\"
            return {"result": task.upper()}


        episode_id = ns.solve("hello world", using=echo_adapter)
        summary = ns.summary.read(episode_id)
        print(summary["metrics"]["success"])  # 1 (no exception raised)
    """,
    "custom_metadata": """
        import noesis_nb.ns as ns
        from dataclasses import dataclass
        from typing import Any


        @dataclass
        class AdapterResult:
            status: str
            result: Any
            metadata: dict


        class InstrumentedAdapter:
            \"\"\"Adapter with timing and metadata.\"\"\"

            def __init__(self, name: str):
                self.name = name

            def __call__(self, task: str) -> dict:
                import time

                start = time.time()

                # Your actual logic
                result = self._process(task)

                duration = time.time() - start

                return {"adapter": self.name, "duration_seconds": duration, "result": result}

            def _process(self, task: str) -> str:
                # Override in subclasses
                return task


        # Usage
        adapter = InstrumentedAdapter("my-adapter")
        episode_id = ns.solve("task", using=adapter)
    """,
    "error_handling": """
        import noesis_nb.ns as ns


        def safe_adapter(task: str) -> dict:
            # Your logic
            result = process(task)
            if not result:
                raise ValueError("empty result")
            return {"result": result}


        episode_id = ns.solve("risky task", using=safe_adapter)
        summary = ns.summary.read(episode_id)

        # Check status
        if summary["metrics"]["success"] == 0:
            events = list(ns.events.read(episode_id))
            reflect_event = next(e for e in events if e["phase"] == "reflect")
            print(f"Failed: {reflect_event['payload'].get('reasons')}")  # ["adapter_error"]
    """,
}


@pytest.mark.parametrize("name", sorted(GUIDE_EXAMPLES))
def test_guide_example_runs_unchanged_but_for_imports(name, runs_dir, capsys):
    import noesis_nb.ns as ns

    ns.set(runs_dir=str(runs_dir))
    scope: dict = {}
    exec(compile(textwrap.dedent(GUIDE_EXAMPLES[name]), f"<guide:{name}>", "exec"), scope)
    episode_id = scope["episode_id"]
    summary = ns.summary.read(episode_id)
    out = capsys.readouterr().out
    if name == "error_handling":
        assert out.strip() == "Failed: ['adapter_error']"
        assert summary["metrics"]["success"] is False
    else:
        assert summary["metrics"]["success"] is True
    if name == "plain_functions":
        assert out.strip() == "True" and summary["answer"]["result"] == {"result": "HELLO WORLD"}
    if name == "custom_metadata":
        assert summary["flags"]["using"] == "InstrumentedAdapter"
        assert summary["answer"]["result"]["adapter"] == "my-adapter"
