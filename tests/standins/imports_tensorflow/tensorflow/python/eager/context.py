class Context:
    def ensure_initialized(self):
        return None
