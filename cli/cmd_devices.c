/* raid devices: list the devices of both backends (OpenCL, CUDA), or why a backend has none. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_devices(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(cli_help("devices"), stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "raid devices: unexpected argument '%s'\n", RAID_SHOWZ(argv[1]));
        return EXIT_USAGE;
    }
    raid_device_info dev[64];
    size_t n = 0;
    raid_devices(dev, 64, &n);
    printf("%-12s %-6s %-5s %10s %-5s %s\n", "device", "type", "cu", "memory_MiB", "fp64", "name (platform)");
    printf("%-12s %-6s %-5s %10s %-5s %s\n", "cpu", "cpu", "-", "-", "yes", "float64 reference backend (OpenMP)");
    size_t nopencl = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        if (dev[i].backend == RAID_BACKEND_CUDA)
            printf("%-12s %-6s %-5u %10llu %-5s %s (%s, compute capability %d.%d)\n", dev[i].spec, dev[i].type,
                   dev[i].compute_units, (unsigned long long)(dev[i].global_mem_bytes >> 20),
                   dev[i].has_fp64 ? "yes" : "no", dev[i].name, dev[i].platform_name, dev[i].cc_major,
                   dev[i].cc_minor);
        else
            printf("%-12s %-6s %-5u %10llu %-5s %s (%s)\n", dev[i].spec, dev[i].type, dev[i].compute_units,
                   (unsigned long long)(dev[i].global_mem_bytes >> 20), dev[i].has_fp64 ? "yes" : "no",
                   dev[i].name, dev[i].platform_name);
        nopencl += dev[i].backend == RAID_BACKEND_OPENCL;
    }
    if (nopencl == 0)
        printf("(no OpenCL platform or device found)\n");
    const char *why = raid_backend_absent(RAID_BACKEND_CUDA);
    if (why)
        printf("(no CUDA: %s)\n", why);
    return 0;
}
