package awstest

import "syscall"

// procAttr puts the server in its own process group (Stop kills the group) and
// asks the kernel to kill it if the test binary dies without running Stop
// (a panic, a -timeout kill), so no JVM is left behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
