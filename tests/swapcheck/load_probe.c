/* load_probe [--preload LIB]... [--list] OBJECT

   Loads OBJECT the way a Python process loads an extension after
   `import torch`: each --preload library first, with RTLD_NOW|RTLD_GLOBAL
   (torch's own libraries, which Python's import loads before any
   dependent), then OBJECT with RTLD_NOW, so every undefined symbol of
   OBJECT must resolve at once, against the preloaded torch or OBJECT's own
   DT_NEEDED libraries (dlopen(3)).

   Prints "OK" and exits 0 when OBJECT loads, prints "FAIL: " and dlerror()
   and exits 1 when it does not; a failing --preload, or bad usage, exits 2.
   --list also prints "LOADED <path>" for every object in the process's
   link map after a successful load (the program itself excluded), to show
   where each library was found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static void print_link_map(void* handle) {
  struct link_map* map = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0) {
    return;
  }
  while (map->l_prev != NULL) {
    map = map->l_prev;
  }
  for (; map != NULL; map = map->l_next) {
    if (map->l_name != NULL && map->l_name[0] != '\0') {
      printf("LOADED %s\n", map->l_name);
    }
  }
}

int main(int argc, char** argv) {
  int list = 0;
  const char* object = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--preload") == 0 && i + 1 < argc) {
      const char* library = argv[++i];
      if (dlopen(library, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        printf("PRELOAD FAILED: %s\n", dlerror());
        return 2;
      }
    } else if (strcmp(argv[i], "--list") == 0) {
      list = 1;
    } else if (object == NULL && argv[i][0] != '-') {
      object = argv[i];
    } else {
      fprintf(stderr, "usage: load_probe [--preload LIB]... [--list] OBJECT\n");
      return 2;
    }
  }
  if (object == NULL) {
    fprintf(stderr, "usage: load_probe [--preload LIB]... [--list] OBJECT\n");
    return 2;
  }
  void* handle = dlopen(object, RTLD_NOW);
  if (handle == NULL) {
    printf("FAIL: %s\n", dlerror());
    return 1;
  }
  printf("OK\n");
  if (list) {
    print_link_map(handle);
  }
  return 0;
}
