"""Reading history: selectors (the queries of the history pages), present (turning a
stored game into what a page shows), replay (rebuilding any version from the log) and
charts. Recording a finished game is a service: game/services/history.py."""
