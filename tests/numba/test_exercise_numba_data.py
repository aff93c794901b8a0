"""The exercises' Numba data: every kernel has a Numba form, every exercise
a starter.py, a Numba section in its statements, and Numba solutions that
compile (or fail to) as their names say; an exercise with a host form
("numba_host") has solutions of that form too, among the kernel form's,
each told apart as kgrade tells it (the module defines the host function).

The names follow the C solutions': <verdict>__<what>.py. A memory_error
solution names its faulting line in its first comment ("(line 10)").
Their verdicts, and that line, are kgrade's to check:
tests/integration/test_grade.sh and tests/full/test_numba_solutions.sh.

Run with Debian's python3 (python3-numba): python3 -m unittest discover
-s tests/numba (tests/run-tests.sh's numba section)."""

import glob
import os
import unittest

import numba_exercises as ne

RUN_VERDICTS = ("passed", "too_slow", "wrong_answer", "memory_error", "timeout", "runtime_error")


def solutions(exercise_id, pattern="*.py"):
    return sorted(glob.glob(os.path.join(ne.EXERCISES, exercise_id, "solutions", pattern)))


def verdict_of(path):
    return os.path.basename(path).split("__")[0]


def first_line(path):
    with open(path) as f:
        return f.readline()


class EveryExerciseHasItsNumbaData(unittest.TestCase):
    def test_every_kernel_has_a_numba_form_and_every_exercise_its_files(self):
        for exercise_id in ne.exercise_ids():
            with self.subTest(exercise=exercise_id):
                exercise = ne.load(exercise_id)
                folder = os.path.join(ne.EXERCISES, exercise_id)
                for kernel in exercise["kernels"]:
                    self.assertIn("numba", kernel, "kernel %s has no Numba form" % kernel["name"])
                self.assertTrue(os.path.isfile(os.path.join(folder, "starter.py")))
                # Numba submissions are judged and timed against a Numba reference
                self.assertTrue(os.path.isfile(os.path.join(folder, "reference.py")),
                                "no reference.py")
                verdicts = {verdict_of(p) for p in solutions(exercise_id)}
                for needed in ("passed", "wrong_answer", "memory_error"):
                    self.assertIn(needed, verdicts, "no %s__*.py" % needed)
                for statement, title in (("statement.md", "## In Numba"),
                                         ("statement.fr.md", "## En Numba")):
                    path = os.path.join(folder, statement)
                    if os.path.exists(path):
                        text = ne.read(path)
                        self.assertIn(title, text, statement)
                        for kernel in exercise["kernels"]:
                            self.assertIn("def %s:" % ne.numba_form(kernel), text, statement)

    def test_every_solution_says_what_it_does(self):
        for path in glob.glob(os.path.join(ne.EXERCISES, "*", "solutions", "*.py")):
            with self.subTest(solution=os.path.relpath(path, ne.EXERCISES)):
                self.assertRegex(first_line(path), r"^# Known (good|bad)")
                self.assertIn(verdict_of(path), RUN_VERDICTS + ("compile_error", "rejected"))
                if verdict_of(path) == "memory_error":
                    self.assertRegex(first_line(path), r"\(line \d+")

    def test_vectorize_solutions_are_for_elementwise_forms(self):
        """kgrade launches a @vectorize ufunc only for a form whose parameters
        are 1-D arrays of one length, the last the exercise's only output."""
        for exercise_id in ne.exercise_ids():
            exercise = ne.load(exercise_id)
            elementwise = all(ne.is_elementwise(exercise, k) for k in exercise["kernels"])
            for path in solutions(exercise_id, "passed__vectorize*.py"):
                with self.subTest(solution=os.path.relpath(path, ne.EXERCISES)):
                    self.assertTrue(elementwise)


class StartersAndSolutionsCompile(unittest.TestCase):
    """numba_compile.py, for the signature kgrade derives from the form:
    starters and solutions compile, but compile_error__ and rejected__ ones,
    which get exactly that status."""

    def test_each_compiles_as_its_name_says(self):
        for exercise_id in ne.exercise_ids():
            exercise = ne.load(exercise_id)
            paths = [os.path.join(ne.EXERCISES, exercise_id, "starter.py")]
            paths += solutions(exercise_id)
            reference = os.path.join(ne.EXERCISES, exercise_id, "reference.py")
            if os.path.exists(reference):
                paths.append(reference)
            for path in paths:
                with self.subTest(file=os.path.relpath(path, ne.EXERCISES)):
                    verdict = verdict_of(path)
                    want = verdict if verdict in ("compile_error", "rejected") else "ok"
                    source = ne.read(path)
                    result = ne.compile_numba(exercise, source, os.path.basename(path))
                    self.assertEqual(result["status"], want, result.get("message"))
                    if want == "compile_error":
                        self.assertIn("line", result, "a compile error with no line")
                    if want == "ok":  # a module defining the host function is the host form
                        self.assertEqual(result.get("form") == "host",
                                         ne.is_host_form(exercise, source), result)

    def test_the_host_form_has_its_solutions(self):
        """An exercise that declares a host form has solutions of both forms."""
        for exercise_id in ne.exercise_ids():
            exercise = ne.load(exercise_id)
            if not ne.host_function(exercise):
                continue
            with self.subTest(exercise=exercise_id):
                forms = {ne.is_host_form(exercise, ne.read(p)) for p in solutions(exercise_id)}
                self.assertEqual(forms, {True, False})
                self.assertIn("passed", {verdict_of(p) for p in solutions(exercise_id)
                                         if ne.is_host_form(exercise, ne.read(p))})


if __name__ == "__main__":
    unittest.main()
