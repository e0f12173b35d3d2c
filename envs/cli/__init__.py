"""Command-line entry modules (script layer: they may import :mod:`agents`): among them ``view``
(a replay as one self-contained HTML page, :mod:`.view`) and ``play`` (a person against an agent
in the browser, :mod:`.play`), each exposing ``main(args)`` called by :mod:`envs.__main__`."""
