"""One package per chapter, named like its page (docs/speed-of-light.md <-> chapters/speed_of_light/): the
chapter's experiments (registered in registry.py as speed_of_light.*) and its facts.py, which turns their stored
results into the numbers and verdicts the page's sentences read."""
