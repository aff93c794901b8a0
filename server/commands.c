/*
 * The kgrade command line as data: every option and every subcommand.
 *
 * This table is the command-line contract of DESIGN.md. A subcommand whose
 * `run` is NULL is parsed and checked like any other, then says which part of
 * kgrade will build it and exits 2, so scripts written against the contract
 * fail clearly instead of doing something else.
 */
#include "cli.h"

#include <stddef.h>

static const struct cli_option_spec options[OPT_COUNT] = {
    [OPT_EXERCISE] = {"exercise", CLI_TEXT, "ID", NULL, "the exercise to grade against"},
    [OPT_EXERCISES] = {"exercises", CLI_TEXT, "DIR", NULL,
                       "the exercise folder (default: the one installed beside kgrade)"},
    [OPT_SEED] = {"seed", CLI_U64, "S", NULL, "the seed of the inputs (default: a fresh one)"},
    [OPT_N] = {"n", CLI_POSITIVE, "N", NULL,
               "grade one case at size N instead of the assessment size (not an assessment "
               "run)"},
    [OPT_DEVICE] = {"device", CLI_CHOICE, NULL, "auto|cuda|emulator",
                    "the GPU: a real one (cuda), the virtual one (emulator), or whichever is "
                    "there (auto, the default)"},
    [OPT_TIMING] = {"timing", CLI_CHOICE, NULL, "auto|single|repeated",
                    "how the assessment is timed: one launch (single, the virtual GPU's "
                    "default), or the median of alternating runs after a warm-up (repeated, a "
                    "real GPU's default)"},
    [OPT_LANGUAGE] = {"language", CLI_CHOICE, NULL, "cuda|numba",
                      "the kernel's language: CUDA C (cuda) or Numba CUDA Python (numba); "
                      "default: numba for a .py file, else cuda"},
    [OPT_NO_SANDBOX] = {"no-sandbox", CLI_FLAG, NULL, NULL,
                        "grade without the sandbox (debugging only; the server refuses it)"},
    [OPT_JSON] = {"json", CLI_FLAG, NULL, NULL, "print the result as JSON"},
    [OPT_PORT] = {"port", CLI_PORT, "P", NULL, "the TCP port to listen on (default 8080)"},
    [OPT_BIND] = {"bind", CLI_TEXT, "ADDR", NULL, "the address to listen on (default 127.0.0.1)"},
    [OPT_DATA] = {"data", CLI_TEXT, "DIR", NULL,
                  "the data folder: database, signing key, logs (default var/)"},
    [OPT_DB] = {"db", CLI_TEXT, "PATH", NULL, "the SQLite database (default var/kgrade.db)"},
    [OPT_WORKERS] = {"workers", CLI_POSITIVE, "N", NULL,
                     "grading workers (default: one per GPU, or one per 2 cores on the virtual "
                     "GPU)"},
    [OPT_SERVER] = {"server", CLI_TEXT, "URL", NULL,
                    "the kgrade server, e.g. https://kgrade.example"},
    [OPT_TOKEN] = {"token", CLI_TEXT, "TOKEN", NULL, "an API token (kgrade token create)"},
    [OPT_ROLE] = {"role", CLI_CHOICE, NULL, "student|instructor|admin", "the account's role"},
    [OPT_PASSWORD_STDIN] = {"password-stdin", CLI_FLAG, NULL, NULL,
                            "read the password from standard input"},
    [OPT_NAME] = {"name", CLI_TEXT, "LABEL", NULL, "a label for the token, e.g. \"ci\""},
    [OPT_PUBLIC_KEY] = {"public-key", CLI_TEXT, "KEY", NULL,
                        "the server's Ed25519 public key, in base64"},
    [OPT_ARCH] = {"arch", CLI_TEXT, "ARCH", NULL,
                  "the GPU architecture: sm_XX (PTX and register counts) or compute_XX "
                  "(PTX only); default sm_90"},
    [OPT_USER] = {"user", CLI_FLAG, NULL, NULL,
                  "for this user only: under Jupyter's data folder (JUPYTER_DATA_DIR, else "
                  "$XDG_DATA_HOME/jupyter, else ~/.local/share/jupyter)"},
    [OPT_PREFIX] = {"prefix", CLI_TEXT, "DIR", NULL,
                    "under DIR/share/jupyter, as `jupyter kernelspec install --prefix DIR` "
                    "(a virtual environment's folder, say)"},
};

static const struct cli_command commands[] = {
    {"grade", "FILE.cu|FILE.py", 1, 1,
     CLI_BIT(OPT_EXERCISE) | CLI_BIT(OPT_EXERCISES) | CLI_BIT(OPT_SEED) | CLI_BIT(OPT_N) |
         CLI_BIT(OPT_DEVICE) | CLI_BIT(OPT_TIMING) | CLI_BIT(OPT_LANGUAGE) |
         CLI_BIT(OPT_NO_SANDBOX) | CLI_BIT(OPT_JSON),
     CLI_BIT(OPT_EXERCISE), 0, "grade a kernel against an exercise, here, with no server",
     "Compiles FILE.cu with NVRTC (or FILE.py with numba, in the sandbox), runs it against the "
     "exercise's reference on seeded inputs, checks its outputs and its speed, and prints the "
     "verdict.",
     cmd_grade, NULL},
    {"compile", "FILE.cu", 1, 1, CLI_BIT(OPT_ARCH) | CLI_BIT(OPT_JSON), 0, 0,
     "compile a kernel with NVRTC and show the diagnostics and the kernels found",
     "Compiles FILE.cu with NVRTC exactly as the grader does, prints what the compiler said, "
     "then each kernel the PTX holds with the registers per thread ptxas reports. Exits 0 when "
     "it compiles, 1 when the compiler refuses it, 2 when the file cannot be read.",
     cmd_compile, NULL},
    {"exercises", NULL, 0, 0, CLI_BIT(OPT_EXERCISES) | CLI_BIT(OPT_JSON), 0, 0,
     "list the exercises",
     "Lists the exercises of the exercise folder (a broken one with its error).", cmd_exercises,
     NULL},
    {"serve", NULL, 0, 0,
     CLI_BIT(OPT_PORT) | CLI_BIT(OPT_BIND) | CLI_BIT(OPT_DATA) | CLI_BIT(OPT_DB) |
         CLI_BIT(OPT_EXERCISES) | CLI_BIT(OPT_WORKERS),
     0, 0, "run the grading service (web pages, REST API, workers)",
     "Starts the HTTP service with its SQLite database, its queue and its sandboxed workers.",
     cmd_serve, NULL},
    {"submit", "FILE.cu|FILE.py", 1, 1,
     CLI_BIT(OPT_SERVER) | CLI_BIT(OPT_TOKEN) | CLI_BIT(OPT_EXERCISE) | CLI_BIT(OPT_LANGUAGE) |
         CLI_BIT(OPT_JSON),
     CLI_BIT(OPT_EXERCISE), 0, "submit a kernel to a kgrade server and wait for the verdict",
     "Submits FILE (CUDA C, or Numba CUDA Python: a .py file, or --language numba) to the "
     "server, shows the grading progress, prints the result like `kgrade grade` and exits with "
     "the same codes (4 when the server is unreachable or refuses the token). --server and "
     "--token may come from the environment instead: KGRADE_URL and KGRADE_TOKEN.",
     cmd_submit, NULL},
    {"user add", "NAME", 1, 1, CLI_BIT(OPT_ROLE) | CLI_BIT(OPT_PASSWORD_STDIN) | CLI_BIT(OPT_DB),
     CLI_BIT(OPT_ROLE), 0, "create an account",
     "Creates the account NAME in the database, with the password read from standard input "
     "(--password-stdin) or a generated one, which is printed.",
     cmd_user_add, NULL},
    {"user import", "FILE.csv", 1, 1, CLI_BIT(OPT_DB), 0, 0,
     "create accounts from a CSV file (prints name,password)",
     "Creates the accounts of FILE.csv (\"-\": standard input), whose first line names the "
     "columns name,display_name,role (display_name empty: the name; role empty: student), each "
     "with a generated password to be changed at the first login, and prints name,password as "
     "CSV. All or nothing: a file with a bad line creates no account; every problem is shown "
     "with its line, and the exit code is 1.",
     cmd_user_import, NULL},
    {"token create", "USER", 1, 1, CLI_BIT(OPT_NAME) | CLI_BIT(OPT_DB), 0, 0,
     "create an API token for a user (prints only the token)",
     "Creates an API token for USER and prints it; only its hash is stored.", cmd_token_create,
     NULL},
    {"worker", NULL, 0, 0, 0, 0, 0, "internal: run one sandboxed grading job",
     "Reads one job from its input pipe (compile an exercise's reference, or grade a source "
     "against a reference compiled apart) and writes progress and the outcome to its output "
     "pipe. Started by the sandbox; not for people.",
     cmd_worker, NULL},
    {"sandbox-check", NULL, 0, 0, CLI_BIT(OPT_DEVICE) | CLI_BIT(OPT_EXERCISES), 0, 0,
     "show which sandbox protections work on this machine",
     "Tries each protection of the sandbox (namespaces, Landlock, seccomp, limits) and reports "
     "which are active, then grades vector-add's reference in the sandbox on the device kgrade "
     "grade would use (--device; on a GPU server, the check that the driver works in a job). "
     "Exits 0 when seccomp, the resource limits and the timeout work and that grade passes, 1 "
     "when not.",
     cmd_sandbox_check, NULL},
    {"cert verify", "FILE.json", 1, 1, CLI_BIT(OPT_PUBLIC_KEY) | CLI_BIT(OPT_SERVER), 0,
     CLI_BIT(OPT_PUBLIC_KEY) | CLI_BIT(OPT_SERVER), "verify a kgrade certificate",
     "Checks the Ed25519 signature of a certificate against a public key, or against the key "
     "the server publishes. Exits 0 when it is valid, 1 when not (saying why), 4 when the server "
     "cannot be reached.",
     cmd_cert_verify, NULL},
    {"run", "PROGRAM [ARGS]", 1, CLI_PROGRAM_FOLLOWS, 0, 0, 0,
     "run a program with the virtual GPU as its CUDA driver (numba's included)",
     "Starts PROGRAM with ARGS (its own options included: kgrade reads no option after "
     "PROGRAM) with kgrade's virtual GPU as its CUDA driver, in place of kgrade: its exit code "
     "and signals are its own. A program linked with -lcuda finds the virtual GPU's "
     "libcuda.so.1 first (LD_LIBRARY_PATH); a Python program's numba uses it "
     "(NUMBA_CUDA_DRIVER) with kgrade's shims for this CUDA toolkit, applied when the program "
     "imports numba.cuda (through a sitecustomize first on PYTHONPATH, which python3 -I, -E "
     "and -S ignore). Use Debian's /usr/bin/python3, whose numba kgrade knows. The modeled GPU is "
     "KGEMU_DEVICE's, as for every program on the virtual GPU. Exits 2 before starting "
     "anything when PROGRAM is missing or not executable, or the virtual GPU is not built.",
     cmd_run, NULL},
    {"jupyter install", NULL, 0, 0, CLI_BIT(OPT_USER) | CLI_BIT(OPT_PREFIX), 0, 0,
     "install the Jupyter kernel 'kgrade' (notebooks on the virtual GPU)",
     "Installs the Jupyter kernel 'kgrade', \"Python 3 (kgrade virtual GPU)\": Debian's "
     "ipykernel (/usr/bin/python3, or KGRADE_PYTHON; apt-get install python3-ipykernel) "
     "started through this kgrade's `kgrade run`, so that a notebook's numba runs on the "
     "virtual GPU. It goes where `jupyter kernelspec install` puts a kernel: with neither "
     "option, for every user under /usr/local/share/jupyter/kernels/kgrade (root's to write); "
     "an existing kernel of that name is replaced. It names this kgrade by its absolute path: "
     "install it again after moving kgrade.",
     cmd_jupyter_install, NULL},
};

const struct cli_option_spec *cli_option(enum cli_option_id id)
{
    return &options[id];
}

const struct cli_command *cli_commands(int *count)
{
    *count = (int)(sizeof commands / sizeof commands[0]);
    return commands;
}
