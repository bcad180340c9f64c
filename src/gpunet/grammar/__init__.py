"""Switch configuration grammars: which configuration lines each switch OS accepts, and in which mode.

The grammar is data (one YAML file per platform, patterns written from vendor documentation) and is
independent of the templates, so the render tests can check every rendered line against it and the
switch simulator can reuse it to accept or reject what a push sends.

    grammar = grammar_for("nxos")
    stack = ()                                   # () is the top configuration mode
    stack = grammar.accept(stack, "interface Ethernet1/1")   # -> ("interface",)
    stack = grammar.accept(stack, "mtu 9216")                # -> ("interface",)

SONiC is a document platform: `grammar_for("sonic").check_document(text)` checks a config_db JSON
document instead.
"""

from gpunet.grammar.grammar import END, Grammar, GrammarError, Source, grammar_for, known_grammars

__all__ = ["END", "Grammar", "GrammarError", "Source", "grammar_for", "known_grammars"]
