/* A QEMU TCG plugin for scripts/bench --arm: counts the guest instructions a process executes
 * (every executed translation block adds its instruction count) and prints the total on stderr
 * at exit as "guest-instructions N". Debian ships no qemu-plugin.h, so the few entry points of
 * QEMU's plugin interface (version 1, QEMU 7.2, qemu-aarch64 exports them) are declared here. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };
typedef void (*tb_translated_fn)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*exiting_fn)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_translated_fn cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op, void* ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, exiting_fn cb, void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed; /* one guest thread: scripts/bench --arm decodes on 1 thread */

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id, (void)userdata;
  fprintf(stderr, "guest-instructions %llu\n", (unsigned long long)executed);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void* info, int argc,
                                                               char** argv) {
  (void)info, (void)argc, (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
