"""A misspelt ``effect=`` or ``risk=`` of a tool call names the value meant, as every other option's error does."""

from __future__ import annotations

import asyncio
import sys

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"effect": "writes"}, "effect='writes' (did you mean 'write'?): use one of ['read', 'write']"),
        ({"risk": "High"}, "risk='High' (did you mean 'high'?): use one of ['low', 'medium', 'high', 'critical']"),
        ({"risk": "critcal"}, "risk='critcal' (did you mean 'critical'?)"),
    ],
)
def test_a_misspelt_tool_option_names_the_one_meant(runs_dir, options, says):
    async def agent(task, ctx):
        return await ctx.tool_async("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, **options)

    async def main():
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir, approver="auto")
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    with pytest.raises(InvalidOptionError) as caught:
        handle.result()
    assert says in str(caught.value)
