document.querySelector("#app")!.textContent = "Kriegsspiel";
