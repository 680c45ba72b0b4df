// The result sheet's print button (the page allows no inline script).
const button = document.getElementById("print");
if (button) button.addEventListener("click", () => window.print());
