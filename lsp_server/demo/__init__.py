"""``reks demo``: the main job on the bundled example project, step by step."""
