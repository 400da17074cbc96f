"""Suite-wide settings.

Property tests are derandomized by default so a run of `make test` (and CI) is reproducible: the same
code gives the same examples and the same verdict. Set HYPOTHESIS_PROFILE=explore to search with fresh
random examples, which is how new counterexamples are found (then pin each as a scenario test).
"""

import os

from hypothesis import settings

settings.register_profile("reproducible", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))
