"""What a host's apt sources enable: the archive components of one-line and deb822 entries.

The nvidia_repo role adds Debian's contrib only where no source enables it already.
"""

from __future__ import annotations


def _entries(text: str) -> list[tuple[list[str], list[str], list[str]]]:
    """(URIs, suites, components) of every enabled entry, one-line and deb822 alike."""
    entries: list[tuple[list[str], list[str], list[str]]] = []
    stanza: dict[str, list[str]] = {}
    for raw in [*text.splitlines(), ""]:
        line = raw.split("#", 1)[0].strip()
        if line.startswith(("deb ", "deb-src ")):
            words = line.split()[1:]
            if words and words[0].startswith("["):  # options: [arch=amd64 signed-by=...]
                while words and not words[0].endswith("]"):
                    words.pop(0)
                words = words[1:]
            if len(words) >= 2:
                entries.append(([words[0]], [words[1]], words[2:]))
        elif ":" in line and not line.startswith("deb"):
            key, value = line.split(":", 1)
            stanza[key.strip().lower()] = value.split()
        elif not line and stanza:
            if stanza.get("enabled", ["yes"])[0].lower() != "no":
                entries.append(
                    (stanza.get("uris", []), stanza.get("suites", []), stanza.get("components", []))
                )
            stanza = {}
    return entries


def release_mirror(text: str, release: str) -> str:
    """The URI the host's own sources fetch its release (e.g. bookworm) from; "" when none does."""
    for uris, suites, _ in _entries(text):
        if release in suites and uris:
            return uris[0]
    return ""


def apt_components(text: str) -> list[str]:
    """Components of every enabled entry in sources.list (one-line) and *.sources (deb822) text."""
    return list(dict.fromkeys(component for _, _, components in _entries(text) for component in components))
