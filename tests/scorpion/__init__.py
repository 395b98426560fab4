"""Tests of the Scorpion rules engine and Gymnasium environment."""
