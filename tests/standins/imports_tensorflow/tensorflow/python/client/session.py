class BaseSession:
    def __init__(self, *args, **kwargs):
        pass

    def run(self, *args, **kwargs):
        return None
