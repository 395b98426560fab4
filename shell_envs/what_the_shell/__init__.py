"""What the Shell: rules (:mod:`.rules`), encoders, renderers and the PettingZoo environment."""
