"""What a host's apt sources enable: the archive components of one-line and deb822 entries.

The nvidia_repo role adds Debian's contrib only where no source enables it already.
"""

from __future__ import annotations


def apt_components(text: str) -> list[str]:
    """Components of every enabled entry in sources.list (one-line) and *.sources (deb822) text."""
    components: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith(("deb ", "deb-src ")):
            words = line.split()[1:]
            if words and words[0].startswith("["):  # options: [arch=amd64 signed-by=...]
                while words and not words[0].endswith("]"):
                    words.pop(0)
                words = words[1:]
            components += words[2:]  # URI, suite, components...
        elif line.lower().startswith("components:"):
            components += line.split(":", 1)[1].split()
    return list(dict.fromkeys(components))
