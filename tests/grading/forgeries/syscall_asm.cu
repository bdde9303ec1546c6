// Makes a system call (write) with inline assembly, bypassing the C library.
// expect: instruction 'syscall'
void write_without_libc(const char* text, long length) {
    long result;
    asm volatile("syscall" : "=a"(result) : "a"(1L), "D"(1L), "S"(text), "d"(length) : "rcx", "r11", "memory");
}
