"""The simulator accepts exactly what gpunet's per-platform grammar data accepts.

The grammar (gpunet.grammar, written from vendor documentation) is shared with the render tests;
the simulator never keeps its own copy.
"""

from __future__ import annotations

from typing import Any


def load_grammar(platform: str) -> Any:
    from gpunet.grammar import grammar_for

    return grammar_for(platform)


def grammar_error_type() -> type[Exception]:
    from gpunet.grammar import GrammarError

    return GrammarError
