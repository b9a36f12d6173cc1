"""browsers"""
