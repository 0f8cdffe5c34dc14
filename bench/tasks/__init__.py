"""The desktop task suite: small requests on real files, each judged by opening the files it leaves.

    python bench/tasks/run.py --model local            # every task through `podium run --batch`
    python bench/tasks/run.py --model local --only seed_bar_chart pie_chart_titled
    python bench/tasks/run.py --list                    # the tasks and what each checks

`suite.TASKS` holds the tasks (one module per theme under suite/), `task` what a task is, `runner` how
the suite runs; the *_view modules are the checkers' ways of reading .xlsx, .docx and folders.
"""
