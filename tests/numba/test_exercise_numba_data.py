"""The exercises' Numba data: every kernel has a Numba form, every exercise
a starter.py, a Numba section in its statements, and Numba solutions that
compile (or fail to) as their names say and, on the virtual GPU against the
exercise's reference.cu, get the verdict their names say.

The names follow the C solutions': <verdict>__<what>.py. A memory_error
solution names its faulting line in its first comment ("(line 10)").
kgrade's own grading of the same files is tests/integration's; this is the
data's check, with numba_exercises.py's small grader, at the correctness
sizes (speed is kgrade's to judge, at the assessment size).

Run with Debian's python3 (python3-numba): python3 -m unittest discover
-s tests/numba (tests/run-tests.sh's numba section)."""

import glob
import os
import re
import unittest

import numba_exercises as ne

# A timeout solution needs only to run past a budget; a small one keeps
# the test short (the default is 2e11 warp instructions).
TIMEOUT_BUDGET = "20000000"
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
                    result = ne.compile_numba(exercise, ne.read(path), os.path.basename(path))
                    self.assertEqual(result["status"], want, result.get("message"))
                    if want == "compile_error":
                        self.assertIn("line", result, "a compile error with no line")


@unittest.skipUnless(os.path.exists(ne.EMULATOR), "no virtual GPU built at " + ne.EMULATOR)
class SolutionsGetTheirVerdict(unittest.TestCase):
    """Each solution that compiles runs at the correctness sizes against
    reference.cu: passed__ and too_slow__ ones are right everywhere,
    wrong_answer__ ones wrong somewhere, memory_error__ ones fault at the
    line their comment names, timeout__ ones run past a budget, runtime_error__
    ones are stopped by the device (a launch it refuses)."""

    @classmethod
    def setUpClass(cls):
        cls.gpu = ne.VirtualGPU()

    def grade(self, exercise, path, ref_ptx, budget=None):
        """numba_exercises.grade, with an instruction budget for the launches
        (the virtual GPU reads it at each launch)."""
        saved = os.environ.get("KGEMU_INSTRUCTION_BUDGET")
        if budget:
            os.environ["KGEMU_INSTRUCTION_BUDGET"] = budget
        try:
            return ne.grade(self.gpu, exercise, ne.read(path), os.path.basename(path),
                            ref_ptx=ref_ptx)
        finally:
            if saved is None:
                os.environ.pop("KGEMU_INSTRUCTION_BUDGET", None)
            else:
                os.environ["KGEMU_INSTRUCTION_BUDGET"] = saved

    def test_each_gets_the_verdict_its_name_says(self):
        for exercise_id in ne.exercise_ids():
            exercise = ne.load(exercise_id)
            ref_ptx = ne.reference_ptx(exercise)
            for path in solutions(exercise_id):
                verdict = verdict_of(path)
                if verdict not in RUN_VERDICTS:
                    continue
                with self.subTest(solution=os.path.relpath(path, ne.EXERCISES)):
                    got, detail = self.grade(exercise, path, ref_ptx,
                                             TIMEOUT_BUDGET if verdict == "timeout" else None)
                    if got == "too_slow":  # at these sizes speed is not judged
                        got = "passed"
                    want = "passed" if verdict == "too_slow" else verdict
                    self.assertEqual(got, want, detail)
                    if verdict == "memory_error":
                        line = int(re.search(r"\(line (\d+)", first_line(path)).group(1))
                        self.assertEqual(detail["line"], line, detail["message"])

    def test_a_numba_reference_agrees_with_the_c_one(self):
        """reference.py, where an exercise has one, is a known-good solution."""
        for reference in sorted(glob.glob(os.path.join(ne.EXERCISES, "*", "reference.py"))):
            exercise = ne.load(os.path.basename(os.path.dirname(reference)))
            with self.subTest(exercise=exercise["id"]):
                got, detail = self.grade(exercise, reference, None)
                self.assertIn(got, ("passed", "too_slow"), detail)


if __name__ == "__main__":
    unittest.main()
