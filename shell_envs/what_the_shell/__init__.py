"""What the Shell: rules (`rules`), encoders, renderers and the PettingZoo environment."""
