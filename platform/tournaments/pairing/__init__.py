"""The pure algorithms of tournaments and version tests: pairing (round robin, gauntlet, Swiss, knockout,
tables), standings with tie-breaks, and the SPRT. Plain data in, plain data out: no Django, no other
platform app (an import-linter contract holds it), so each is tested and benchmarked without a database."""
