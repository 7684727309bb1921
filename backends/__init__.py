"""Implementations under test, behind one small contract."""
