// Runs commands and loads code: system, popen, fork and exec, dlopen and dlsym.
// expect: calls or uses system
// expect: calls or uses popen
// expect: calls or uses fork
// expect: calls or uses execv
// expect: calls or uses dlopen
// expect: calls or uses dlsym
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>
void run_commands(int how) {
    char* const arguments[] = {nullptr};
    switch (how) {
        case 0: (void)std::system("true"); break;
        case 1: (void)popen("true", "r"); break;
        case 2: if (fork() == 0) execv("/bin/true", arguments); break;
        default: (void)dlsym(dlopen("libc.so.6", RTLD_NOW), "system");
    }
}
